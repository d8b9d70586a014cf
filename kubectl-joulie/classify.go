package main

import corev1 "k8s.io/api/core/v1"

// profileLabel is the node label the operator writes and workloads select on.
const profileLabel = "joulie.io/power-profile"

// performanceOnly says whether a pod may run only on performance nodes, by the rule of docs/policies.md ("Pod
// classification"): the profiles a pod may land on are narrowed by its nodeSelector on joulie.io/power-profile and
// by every term of its required node affinity (In keeps the listed values, NotIn removes them; terms are
// alternatives); exactly {performance} is performance-only. The operator's planner applies the same rule
// (io.joulie.planner.PodClassifier); the e2e suite checks that this count agrees with what the operator reports.
func performanceOnly(spec *corev1.PodSpec) bool {
	allowed := map[string]bool{"performance": true, "eco": true}
	if v, ok := spec.NodeSelector[profileLabel]; ok {
		for p := range allowed {
			if p != v {
				delete(allowed, p)
			}
		}
	}
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		if len(terms) > 0 {
			union := map[string]bool{}
			for _, t := range terms {
				for p := range allowedBy(t) {
					union[p] = true
				}
			}
			for p := range allowed {
				if !union[p] {
					delete(allowed, p)
				}
			}
		}
	}
	return len(allowed) == 1 && allowed["performance"]
}

func allowedBy(t corev1.NodeSelectorTerm) map[string]bool {
	allowed := map[string]bool{"performance": true, "eco": true}
	for _, r := range t.MatchExpressions {
		if r.Key != profileLabel {
			continue
		}
		switch r.Operator {
		case corev1.NodeSelectorOpIn:
			keep := map[string]bool{}
			for _, v := range r.Values {
				if allowed[v] {
					keep[v] = true
				}
			}
			allowed = keep
		case corev1.NodeSelectorOpNotIn:
			for _, v := range r.Values {
				delete(allowed, v)
			}
		}
	}
	return allowed
}

// active says whether a pod still counts as demand: not terminating, not Succeeded or Failed.
func active(p *corev1.Pod) bool {
	return p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}
