package main

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// snapshot is what the status is made of: the objects as the API server has them.
type snapshot struct {
	joulie   *unstructured.Unstructured  // the Joulie resource named joulie, nil when there is none
	profiles []unstructured.Unstructured // NodePowerProfiles
}

// row is one node of the table.
type row struct {
	node, profile, state, since, desired, applied, gpuDesired, gpuApplied, result, answered, agent, perfPods, why string
}

// columns is the table's header, in the order of row's fields.
var columns = []string{"NODE", "PROFILE", "STATE", "SINCE", "CAP", "APPLIED (W)", "GPU CAP", "GPU APPLIED (W)", "RESULT",
	"ANSWERED", "AGENT", "PERF PODS", "WHY"}

// cells are the row's columns, each on one line with single spaces (a message may hold tabs or newlines) and "-" for
// an empty one, so that the table's columns stay apart by two spaces or more.
func (r row) cells() []string {
	cells := []string{r.node, r.profile, r.state, r.since, r.desired, r.applied, r.gpuDesired, r.gpuApplied, r.result,
		r.answered, r.agent, r.perfPods, r.why}
	for i, c := range cells {
		cells[i] = orDash(strings.Join(strings.Fields(c), " "))
	}
	return cells
}

// rows reads each node's NodePowerProfile, which holds the whole exchange: what the operator asks (spec), where it
// stands and why (status, the operator's), and what the agent did (status.applied, the agent's); one row per planned
// node, then the nodes the operator left out of planning.
func rows(s snapshot, now time.Time, only string) []row {
	var out []row
	for _, npp := range s.profiles {
		node, _, _ := unstructured.NestedString(npp.Object, "spec", "nodeName")
		if only != "" && node != only {
			continue
		}
		r := row{node: node}
		r.profile = str(npp.Object, "spec", "profile")
		r.state = str(npp.Object, "status", "state")
		r.since = age(str(npp.Object, "status", "since"), now)
		r.desired = capOf(npp.Object, "cpu", "packagePowerCapWatts", "packagePowerCapPercent")
		r.gpuDesired = capOf(npp.Object, "gpu", "powerCapWattsPerGpu", "powerCapPercent")
		r.perfPods = "-"
		if n, ok := number(npp.Object, "status", "performancePods"); ok {
			r.perfPods = strconv.FormatInt(n, 10)
		}
		r.agent = str(npp.Object, "status", "agent")
		r.answered = answered(npp)
		r.applied = cpuApplied(npp.Object)
		r.gpuApplied = gpuApplied(npp.Object)
		why := []string{str(npp.Object, "status", "reason")}
		var results []string
		for _, family := range []string{"cpu", "gpu"} {
			a, ok := nested(npp.Object, "status", "applied", family)
			result := str(a, "result")
			if !ok || result == "" {
				continue
			}
			if strings.EqualFold(result, "None") && !asks(npp.Object, family) { // nothing to control there, nothing asked: nothing to show
				continue
			}
			shown := strings.ToLower(result)
			if backend := str(a, "backend"); backend != "" {
				shown += "/" + backend
			}
			results = append(results, shown)
			if !strings.EqualFold(result, "Applied") && str(a, "message") != "" {
				why = append(why, "agent: "+str(a, "message"))
			}
		}
		r.result = strings.Join(results, " ")
		if m := str(npp.Object, "status", "agentMessage"); m != "" && !saidAlready(why, m) {
			why = append(why, m)
		}
		r.why = join(why...)
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
			out = append(out, row{node: node, state: "Excluded", why: join(str(m, "reason"), str(m, "message"))})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].node < out[j].node })
	return out
}

// answered says whether the agent's answer is for the spec as it is now: "yes" when status.applied.generation is
// metadata.generation, "no (gen 2/3)" when it answered an older one, "no" when it never answered; "-" when the
// object carries no generation (the API server always sets one).
func answered(npp unstructured.Unstructured) string {
	current := npp.GetGeneration()
	got, ok := number(npp.Object, "status", "applied", "generation")
	switch {
	case !ok:
		return "no"
	case current == 0:
		return "-"
	case got == current:
		return "yes"
	}
	return fmt.Sprintf("no (gen %d/%d)", got, current)
}

// cpuApplied is the watts the agent wrote for the node's CPUs, or the throttle it set where it could only slow the
// cores down (cpufreq); "-" when it reports neither.
func cpuApplied(npp map[string]any) string {
	if w := watts(npp, "status", "applied", "cpu", "watts"); w != "-" {
		return w
	}
	if t := watts(npp, "status", "applied", "cpu", "throttlePercent"); t != "-" {
		return "throttle " + t + "%"
	}
	return "-"
}

// gpuApplied is the watts the agent wrote per GPU board: "300" for one board, "4x300" when every board has the same,
// "300,280" when they differ, "8 boards 280-300" beyond four differing boards; "-" when it reports none.
func gpuApplied(npp map[string]any) string {
	boards, _, _ := unstructured.NestedSlice(npp, "status", "applied", "gpu", "boards")
	type board struct {
		index int64
		watts float64
	}
	var bs []board
	for _, b := range boards {
		m, _ := b.(map[string]any)
		w, ok := floatAt(m, "watts")
		if !ok {
			continue
		}
		i, _ := number(m, "index")
		bs = append(bs, board{i, w})
	}
	if len(bs) == 0 {
		return "-"
	}
	sort.SliceStable(bs, func(i, j int) bool { return bs[i].index < bs[j].index })
	lo, hi := bs[0].watts, bs[0].watts
	var each []string
	for _, b := range bs {
		lo, hi = min(lo, b.watts), max(hi, b.watts)
		each = append(each, formatWatts(b.watts))
	}
	switch {
	case lo == hi && len(bs) == 1:
		return formatWatts(lo)
	case lo == hi:
		return fmt.Sprintf("%dx%s", len(bs), formatWatts(lo))
	case len(bs) <= 4:
		return strings.Join(each, ",")
	}
	return fmt.Sprintf("%d boards %s-%s", len(bs), formatWatts(lo), formatWatts(hi))
}

// asks says whether the spec asks a cap of a family (cpu, gpu).
func asks(npp map[string]any, family string) bool {
	_, ok := nested(npp, "spec", family)
	return ok
}

// saidAlready says whether a message repeats, or is part of, one already in the list.
func saidAlready(said []string, m string) bool {
	for _, s := range said {
		if s != "" && (strings.Contains(s, m) || strings.Contains(m, s)) {
			return true
		}
	}
	return false
}

// render writes the installation's summary and the table.
func render(w io.Writer, s snapshot, now time.Time, only string) {
	fmt.Fprintln(w, summary(s))
	t := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(t, strings.Join(columns, "\t"))
	for _, r := range rows(s, now, only) {
		fmt.Fprintln(t, strings.Join(r.cells(), "\t"))
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

// nested is the object at a path, when there is one.
func nested(obj map[string]any, fields ...string) (map[string]any, bool) {
	m, found, err := unstructured.NestedMap(obj, fields...)
	return m, found && err == nil
}

// floatAt is a number at a path, as JSON decoding left it (int64 or float64).
func floatAt(obj map[string]any, fields ...string) (float64, bool) {
	v, found, _ := unstructured.NestedFieldNoCopy(obj, fields...)
	switch n := v.(type) {
	case int64:
		return float64(n), found
	case float64:
		return n, found
	}
	return 0, false
}

// watts formats a number (of watts, mostly) without trailing zeros; "-" when absent.
func watts(obj map[string]any, fields ...string) string {
	v, found, _ := unstructured.NestedFieldNoCopy(obj, fields...)
	if !found || v == nil {
		return "-"
	}
	if n, ok := floatAt(obj, fields...); ok {
		return formatWatts(n)
	}
	return fmt.Sprint(v)
}

func formatWatts(n float64) string {
	return strconv.FormatFloat(n, 'f', -1, 64)
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

// join puts the non-empty parts together, "; " between them.
func join(parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "; ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
