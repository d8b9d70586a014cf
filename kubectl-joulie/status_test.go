package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func term(exprs ...corev1.NodeSelectorRequirement) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchExpressions: exprs}
}

func req(op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: profileLabel, Operator: op, Values: values}
}

func withTerms(terms ...corev1.NodeSelectorTerm) *corev1.PodSpec {
	return &corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}}
}

// The cases of docs/policies.md's pod classification, as PodClassifierTest has them for the operator.
func TestPerformanceOnlyFollowsThePolicyDocument(t *testing.T) {
	cases := []struct {
		name string
		spec *corev1.PodSpec
		want bool
	}{
		{"nodeSelector performance", &corev1.PodSpec{NodeSelector: map[string]string{profileLabel: "performance"}}, true},
		{"nodeSelector eco", &corev1.PodSpec{NodeSelector: map[string]string{profileLabel: "eco"}}, false},
		{"nodeSelector unknown value", &corev1.PodSpec{NodeSelector: map[string]string{profileLabel: "turbo"}}, false},
		{"no constraint", &corev1.PodSpec{}, false},
		{"affinity In performance", withTerms(term(req(corev1.NodeSelectorOpIn, "performance"))), true},
		{"affinity NotIn eco", withTerms(term(req(corev1.NodeSelectorOpNotIn, "eco"))), true},
		{"affinity In both", withTerms(term(req(corev1.NodeSelectorOpIn, "performance", "eco"))), false},
		{"terms are alternatives", withTerms(term(req(corev1.NodeSelectorOpIn, "performance")), term(req(corev1.NodeSelectorOpIn, "eco"))), false},
		{"Exists constrains nothing", withTerms(term(req(corev1.NodeSelectorOpExists))), false},
		{"another key", withTerms(term(corev1.NodeSelectorRequirement{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"performance"}})), false},
	}
	for _, c := range cases {
		if got := performanceOnly(c.spec); got != c.want {
			t.Errorf("%s: performanceOnly = %v, want %v", c.name, got, c.want)
		}
	}
}

func obj(m map[string]any) unstructured.Unstructured {
	return unstructured.Unstructured{Object: m}
}

func TestARowJoinsPlanAgentAndPods(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	perf := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p1", Namespace: "work"},
		Spec:   corev1.PodSpec{NodeName: "n1", NodeSelector: map[string]string{profileLabel: "performance"}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	done := perf
	done.Status.Phase = corev1.PodSucceeded
	s := snapshot{
		joulie: &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "joulie"}, "status": map[string]any{
			"conditions": []any{
				map[string]any{"type": "Available", "status": "True", "reason": "AllAgentsReady"},
				map[string]any{"type": "Degraded", "status": "True", "reason": "TelemetryUnavailable", "message": "Prometheus down"},
			},
			"agents":          map[string]any{"desired": int64(2), "ready": int64(2)},
			"effectivePolicy": map[string]any{"type": "static_partition"},
			"excludedNodes":   []any{map[string]any{"name": "n3", "reason": "NoPowerControl", "message": "no RAPL, no cpufreq"}},
		}}},
		profiles: []unstructured.Unstructured{
			obj(map[string]any{"spec": map[string]any{"nodeName": "n1", "profile": "eco", "cpu": map[string]any{"packagePowerCapWatts": 120.0}},
				"status": map[string]any{"state": "DrainingPerformance", "since": "2026-11-24T11:55:00Z",
					"reason": "draining 1 performance-only pod: work/p1"}}),
			obj(map[string]any{"spec": map[string]any{"nodeName": "n2", "profile": "performance",
				"cpu": map[string]any{"packagePowerCapPercent": int64(100)}, "gpu": map[string]any{"powerCapPercent": 60.0}},
				"status": map[string]any{"state": "ActivePerformance", "since": "2026-11-24T09:30:00Z", "reason": "selected for performance"}}),
		},
		telemetry: []unstructured.Unstructured{
			obj(map[string]any{"spec": map[string]any{"target": map[string]any{"scope": "node", "nodeName": "n1"}},
				"status": map[string]any{"control": map[string]any{"cpu": map[string]any{"backend": "powercap", "result": "applied",
					"message": "applied", "observed": map[string]any{"capWatts": 400.0}},
					"gpu": map[string]any{"backend": "none", "result": "none", "message": "GPU control is disabled"}}}}),
			obj(map[string]any{"spec": map[string]any{"target": map[string]any{"scope": "node", "nodeName": "n2"}},
				"status": map[string]any{"control": map[string]any{"cpu": map[string]any{"backend": "powercap", "result": "blocked",
					"message": "RAPL limit locked by the firmware"}, "gpu": map[string]any{"backend": "nvml", "result": "applied",
					"message": "applied", "observed": map[string]any{"capWattsPerGpu": 420.0}}}}}),
			obj(map[string]any{"spec": map[string]any{"target": map[string]any{"scope": "cluster"}}}),
		},
		pods: []corev1.Pod{perf, done},
	}
	var out bytes.Buffer
	render(&out, s, now, "")
	text := out.String()
	for _, want := range []string{
		"Joulie: Available=True (AllAgentsReady); Degraded=True (TelemetryUnavailable: Prometheus down); agents 2/2 ready; policy static_partition",
		"NODE  PROFILE",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	rs := rows(s, now, "")
	if len(rs) != 3 {
		t.Fatalf("rows: %+v", rs)
	}
	want := []row{
		{"n1", "eco", "DrainingPerformance", "5m", "120 W", "400", "-", "-", "applied/powercap", "1", "draining 1 performance-only pod: work/p1"},
		{"n2", "performance", "ActivePerformance", "2h30m", "100 %", "-", "60 %", "420", "blocked/powercap applied/nvml", "0",
			"selected for performance; agent: RAPL limit locked by the firmware"},
		{"n3", "-", "Excluded", "-", "-", "-", "-", "-", "-", "0", "NoPowerControl; no RAPL, no cpufreq"},
	}
	for i := range want {
		if rs[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, rs[i], want[i])
		}
	}
	if only := rows(s, now, "n2"); len(only) != 1 || only[0].node != "n2" {
		t.Errorf("--node n2: %+v", only)
	}
}

func TestWithoutAJoulieResourceTheSummarySaysSo(t *testing.T) {
	if got := summary(snapshot{}); !strings.Contains(got, "no Joulie resource named joulie") {
		t.Errorf("summary = %q", got)
	}
}

func TestAges(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]string{"2026-11-24T11:59:15Z": "45s", "2026-11-24T11:48:00Z": "12m",
		"2026-11-24T09:00:00Z": "3h", "2026-11-22T10:00:00Z": "2d", "": "-", "soon": "-"} {
		if got := age(in, now); got != want {
			t.Errorf("age(%q) = %q, want %q", in, got, want)
		}
	}
}
