package main

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// snapshot is what the status is made of: the objects as the API server has them.
type snapshot struct {
	joulie    *unstructured.Unstructured  // the Joulie resource named joulie, nil when there is none
	profiles  []unstructured.Unstructured // NodePowerProfiles
	telemetry []unstructured.Unstructured // TelemetryProfiles
	pods      []corev1.Pod
}

// row is one node of the table.
type row struct {
	node, profile, state, since, desired, applied, gpuDesired, gpuApplied, agent, perfPods, why string
}

// rows joins what the operator wants (NodePowerProfile), what the agent did (the node's TelemetryProfile status) and the
// node's performance-only pods, one row per planned node, then the nodes the operator left out of planning.
func rows(s snapshot, now time.Time, only string) []row {
	agents := map[string]map[string]any{} // node -> status.control of its TelemetryProfile
	for _, tp := range s.telemetry {
		scope, _, _ := unstructured.NestedString(tp.Object, "spec", "target", "scope")
		node, _, _ := unstructured.NestedString(tp.Object, "spec", "target", "nodeName")
		control, found, _ := unstructured.NestedMap(tp.Object, "status", "control")
		if scope == "node" && node != "" && found {
			agents[node] = control
		}
	}
	perf := map[string]int{}
	for i := range s.pods {
		p := &s.pods[i]
		if p.Spec.NodeName != "" && active(p) && performanceOnly(&p.Spec) {
			perf[p.Spec.NodeName]++
		}
	}
	var out []row
	for _, npp := range s.profiles {
		node, _, _ := unstructured.NestedString(npp.Object, "spec", "nodeName")
		if only != "" && node != only {
			continue
		}
		r := row{node: node, perfPods: strconv.Itoa(perf[node])}
		r.profile, _, _ = unstructured.NestedString(npp.Object, "spec", "profile")
		r.state = orDash(str(npp.Object, "status", "state"))
		r.since = age(str(npp.Object, "status", "since"), now)
		r.desired = capOf(npp.Object, "cpu", "packagePowerCapWatts", "packagePowerCapPercent")
		r.gpuDesired = capOf(npp.Object, "gpu", "powerCapWattsPerGpu", "powerCapPercent")
		r.why = str(npp.Object, "status", "reason")
		r.applied, r.gpuApplied, r.agent = "-", "-", ""
		for _, family := range []struct{ name, observed string }{{"cpu", "capWatts"}, {"gpu", "capWattsPerGpu"}} {
			c, ok := agents[node][family.name].(map[string]any)
			if !ok || (family.name == "gpu" && str(c, "result") == "none") { // no GPU control there: nothing to show
				continue
			}
			if family.name == "cpu" {
				r.applied = watts(c, "observed", family.observed)
			} else {
				r.gpuApplied = watts(c, "observed", family.observed)
			}
			result, backend := str(c, "result"), str(c, "backend")
			if backend != "" {
				result += "/" + backend
			}
			r.agent = strings.TrimSpace(r.agent + " " + result)
			if str(c, "result") != "applied" && str(c, "message") != "" {
				r.why = join(r.why, "agent: "+str(c, "message"))
			}
		}
		r.agent = orDash(r.agent)
		r.why = orDash(r.why)
		out = append(out, r)
	}
	if s.joulie != nil {
		excluded, _, _ := unstructured.NestedSlice(s.joulie.Object, "status", "excludedNodes")
		for _, e := range excluded {
			m, _ := e.(map[string]any)
			node := str(m, "name")
			if only != "" && node != only {
				continue
			}
			out = append(out, row{node: node, profile: "-", state: "Excluded", since: "-", desired: "-", applied: "-", gpuDesired: "-",
				gpuApplied: "-", agent: "-",
				perfPods: strconv.Itoa(perf[node]), why: orDash(join(str(m, "reason"), str(m, "message")))})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].node < out[j].node })
	return out
}

// render writes the installation's summary and the table.
func render(w io.Writer, s snapshot, now time.Time, only string) {
	fmt.Fprintln(w, summary(s))
	t := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(t, "NODE\tPROFILE\tSTATE\tSINCE\tCAP\tAPPLIED (W)\tGPU CAP\tGPU APPLIED (W)\tAGENT\tPERF PODS\tWHY")
	for _, r := range rows(s, now, only) {
		fmt.Fprintf(t, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.node, r.profile, r.state, r.since, r.desired, r.applied,
			r.gpuDesired, r.gpuApplied, r.agent, r.perfPods, r.why)
	}
	t.Flush()
}

// summary is one line on the Joulie resource: its conditions (with the reason of those that are not well), the
// agents, the policy in force and the nodes by state.
func summary(s snapshot) string {
	if s.joulie == nil {
		return "Joulie: no Joulie resource named joulie (the operator deploys no agent without one; kubernetes/sample/joulie.yml)"
	}
	var parts []string
	conditions, _, _ := unstructured.NestedSlice(s.joulie.Object, "status", "conditions")
	for _, c := range conditions {
		m, _ := c.(map[string]any)
		typ, status, reason := str(m, "type"), str(m, "status"), str(m, "reason")
		part := typ + "=" + status
		healthy := (typ == "Degraded" || typ == "Progressing") == (status == "False")
		if !healthy || typ == "Available" {
			part += " (" + reason
			if !healthy && str(m, "message") != "" {
				part += ": " + str(m, "message")
			}
			part += ")"
		}
		parts = append(parts, part)
	}
	if len(conditions) == 0 {
		parts = append(parts, "no status yet (is the operator running?)")
	}
	if ready, ok := number(s.joulie.Object, "status", "agents", "ready"); ok {
		desired, _ := number(s.joulie.Object, "status", "agents", "desired")
		parts = append(parts, fmt.Sprintf("agents %d/%d ready", ready, desired))
	}
	if policy := str(s.joulie.Object, "status", "effectivePolicy", "type"); policy != "" {
		parts = append(parts, "policy "+policy)
	}
	return "Joulie: " + strings.Join(parts, "; ")
}

func str(obj map[string]any, fields ...string) string {
	v, _, _ := unstructured.NestedFieldNoCopy(obj, fields...)
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

func number(obj map[string]any, fields ...string) (int64, bool) {
	v, found, _ := unstructured.NestedFieldNoCopy(obj, fields...)
	switch n := v.(type) {
	case int64:
		return n, found
	case float64:
		return int64(n), found
	}
	return 0, false
}

// watts formats a number of watts without trailing zeros; "-" when absent.
func watts(obj map[string]any, fields ...string) string {
	v, found, _ := unstructured.NestedFieldNoCopy(obj, fields...)
	if !found || v == nil {
		return "-"
	}
	switch n := v.(type) {
	case float64:
		return strconv.FormatFloat(n, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(n, 10)
	}
	return fmt.Sprint(v)
}

// capOf is the cap a NodePowerProfile asks of a family: "240 W" or "60 %" (per package or board); "-" when it asks none.
func capOf(npp map[string]any, family, wattsField, percentField string) string {
	if w := watts(npp, "spec", family, wattsField); w != "-" {
		return w + " W"
	}
	if p := watts(npp, "spec", family, percentField); p != "-" {
		return p + " %"
	}
	return "-"
}

// age is how long ago an RFC 3339 time was, as kubectl shows ages (45s, 12m, 3h5m, 2d).
func age(rfc3339 string, now time.Time) string {
	t, err := time.Parse(time.RFC3339, rfc3339)
	if err != nil {
		return "-"
	}
	d := now.Sub(t)
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		h, m := int(d.Hours()), int(d.Minutes())%60
		if m == 0 {
			return fmt.Sprintf("%dh", h)
		}
		return fmt.Sprintf("%dh%dm", h, m)
	}
	return fmt.Sprintf("%dd", int(d.Hours())/24)
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
