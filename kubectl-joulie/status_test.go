package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
)

var now = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// npp is a NodePowerProfile as the API server serves it: generation, spec and status.
func npp(node string, generation int64, spec, status map[string]any) unstructured.Unstructured {
	u := unstructured.Unstructured{Object: map[string]any{"apiVersion": "joulie.io/v1alpha1", "kind": "NodePowerProfile",
		"spec": spec}}
	u.SetName("node-" + node)
	u.SetGeneration(generation)
	spec["nodeName"] = node
	if status != nil {
		u.Object["status"] = status
	}
	return u
}

func joulie() *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "joulie.io/v1alpha1", "kind": "Joulie",
		"status": map[string]any{
			"conditions": []any{
				map[string]any{"type": "Available", "status": "True", "reason": "AllAgentsReady"},
				map[string]any{"type": "Degraded", "status": "True", "reason": "TelemetryUnavailable", "message": "Prometheus down"},
			},
			"agents":          map[string]any{"desired": int64(5), "ready": int64(5)},
			"effectivePolicy": map[string]any{"type": "static_partition"},
			"excludedNodes":   []any{map[string]any{"name": "n9", "reason": "NoPowerControl", "message": "no RAPL, no cpufreq"}},
		}}}
	u.SetName("joulie")
	return u
}

func boards(watts ...float64) []any {
	var bs []any
	for i, w := range watts {
		bs = append(bs, map[string]any{"index": int64(i), "name": "NVIDIA H100", "watts": w})
	}
	return bs
}

// cluster holds one node per case the table has to tell apart.
func cluster() snapshot {
	return snapshot{joulie: joulie(), profiles: []unstructured.Unstructured{
		// answered the current generation: the CPU cap applied and confirmed; no GPU there (result None, not shown)
		npp("n1", 4, map[string]any{"profile": "eco", "cpu": map[string]any{"packagePowerCapWatts": 120.0}},
			map[string]any{"state": "DrainingPerformance", "since": "2026-11-24T11:55:00Z",
				"reason": "draining 2 performance-only pods: work/p1, work/p2", "observedGeneration": int64(4),
				"performancePods": int64(2), "agent": "Confirmed",
				"applied": map[string]any{"generation": int64(4), "time": "2026-11-24T11:55:02Z",
					"cpu": map[string]any{"result": "Applied", "backend": "powercap", "watts": int64(120),
						"packages": []any{map[string]any{"index": int64(0), "watts": 60.0}, map[string]any{"index": int64(1), "watts": 60.0}}},
					"gpu": map[string]any{"result": "None", "backend": "none", "message": "GPU control is disabled"}}}),
		// has not answered generation 3: its answer (to 2) still shows, the operator waits
		npp("n2", 3, map[string]any{"profile": "performance", "cpu": map[string]any{"packagePowerCapPercent": int64(100)},
			"gpu": map[string]any{"powerCapPercent": 60.0}},
			map[string]any{"state": "ActivePerformance", "since": "2026-11-24T09:30:00Z", "reason": "selected for performance",
				"performancePods": int64(0), "agent": "Waiting", "agentMessage": "no answer to generation 3 yet",
				"applied": map[string]any{"generation": int64(2),
					"cpu": map[string]any{"result": "Blocked", "backend": "powercap", "message": "RAPL limit locked by the firmware"},
					"gpu": map[string]any{"result": "Applied", "backend": "nvml", "boards": boards(420, 420, 420, 420)}}}),
		// restored the firmware limits on its way out: not holding the cap asked, whatever the watts say
		npp("n3", 5, map[string]any{"profile": "eco", "cpu": map[string]any{"packagePowerCapWatts": 150.5}},
			map[string]any{"state": "ActiveEco", "since": "2026-11-22T10:00:00Z", "reason": "selected for eco",
				"performancePods": int64(0), "agent": "Refused", "agentMessage": "restored the firmware limits (SIGTERM)",
				"applied": map[string]any{"generation": int64(5),
					"cpu": map[string]any{"result": "Restored", "backend": "powercap", "watts": 250.0,
						"message": "restored the firmware limits (SIGTERM)"}}}),
		// GPU-only: no CPU cap asked and no CPU result shown; per-board watts that differ
		npp("n4", 1, map[string]any{"profile": "eco", "gpu": map[string]any{"powerCapWattsPerGpu": 300.0}},
			map[string]any{"state": "ActiveEco", "since": "2026-11-24T11:59:15Z", "reason": "selected for eco",
				"performancePods": int64(0), "agent": "Confirmed",
				"applied": map[string]any{"generation": int64(1),
					"cpu": map[string]any{"result": "None"},
					"gpu": map[string]any{"result": "Applied", "backend": "nvml", "boards": boards(300, 280)}}}),
		// just created: the operator has written nothing yet, the agent has not answered
		npp("n5", 1, map[string]any{"profile": "performance", "cpu": map[string]any{"packagePowerCapPercent": int64(100)}}, nil),
	}}
}

var columnGap = regexp.MustCompile(`\s{2,}`)

// table reads rendered output back as DayTwoIT does (columns split on runs of two or more spaces) into each node's
// cells by column name, and checks that every row has every column.
func table(t *testing.T, text string) map[string]map[string]string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[1], "NODE ") {
		t.Fatalf("no table in:\n%s", text)
	}
	header := columnGap.Split(lines[1], -1)
	if strings.Join(header, "|") != strings.Join(columns, "|") {
		t.Fatalf("header %q, want %q", header, columns)
	}
	rows := map[string]map[string]string{}
	for _, line := range lines[2:] {
		cells := columnGap.Split(strings.TrimRight(line, " "), -1)
		if len(cells) != len(columns) {
			t.Fatalf("%d cells, want %d: %q", len(cells), len(columns), line)
		}
		row := map[string]string{}
		for i, c := range cells {
			row[columns[i]] = c
		}
		rows[cells[0]] = row
	}
	return rows
}

func rendered(t *testing.T, s snapshot, only string) (string, map[string]map[string]string) {
	var out bytes.Buffer
	render(&out, s, now, only)
	return out.String(), table(t, out.String())
}

func assertRow(t *testing.T, text string, got map[string]string, want map[string]string) {
	t.Helper()
	for column, value := range want {
		if got[column] != value {
			t.Errorf("%s of %s = %q, want %q in:\n%s", column, got["NODE"], got[column], value, text)
		}
	}
}

func TestTheSummaryLineSaysWhatTheJoulieResourceSays(t *testing.T) {
	text, _ := rendered(t, cluster(), "")
	want := "Joulie: Available=True (AllAgentsReady); Degraded=True (TelemetryUnavailable: Prometheus down); agents 5/5 ready; policy static_partition\n"
	if !strings.HasPrefix(text, want) {
		t.Errorf("want first line %q in:\n%s", want, text)
	}
}

func TestANodeWhoseAgentAnsweredTheCurrentGeneration(t *testing.T) {
	text, rows := rendered(t, cluster(), "")
	assertRow(t, text, rows["n1"], map[string]string{"PROFILE": "eco", "STATE": "DrainingPerformance", "SINCE": "5m",
		"CAP": "120 W", "APPLIED (W)": "120", "GPU CAP": "-", "GPU APPLIED (W)": "-", "RESULT": "applied/powercap",
		"ANSWERED": "yes", "AGENT": "Confirmed", "PERF PODS": "2", "WHY": "draining 2 performance-only pods: work/p1, work/p2"})
}

func TestANodeWhoseAgentHasNotAnsweredTheCurrentGeneration(t *testing.T) {
	text, rows := rendered(t, cluster(), "")
	assertRow(t, text, rows["n2"], map[string]string{"PROFILE": "performance", "STATE": "ActivePerformance", "SINCE": "2h30m",
		"CAP": "100 %", "APPLIED (W)": "-", "GPU CAP": "60 %", "GPU APPLIED (W)": "4x420",
		"RESULT": "blocked/powercap applied/nvml", "ANSWERED": "no (gen 2/3)", "AGENT": "Waiting", "PERF PODS": "0",
		"WHY": "selected for performance; agent: RAPL limit locked by the firmware; no answer to generation 3 yet"})
	// never answered, nothing from the operator either
	assertRow(t, text, rows["n5"], map[string]string{"PROFILE": "performance", "STATE": "-", "SINCE": "-", "CAP": "100 %",
		"APPLIED (W)": "-", "RESULT": "-", "ANSWERED": "no", "AGENT": "-", "PERF PODS": "-", "WHY": "-"})
}

func TestARestoredAnswerSaysSo(t *testing.T) {
	text, rows := rendered(t, cluster(), "")
	// the operator's message repeats the agent's: said once
	assertRow(t, text, rows["n3"], map[string]string{"STATE": "ActiveEco", "SINCE": "2d", "CAP": "150.5 W",
		"APPLIED (W)": "250", "RESULT": "restored/powercap", "ANSWERED": "yes", "AGENT": "Refused",
		"WHY": "selected for eco; agent: restored the firmware limits (SIGTERM)"})
}

func TestAGpuOnlyNode(t *testing.T) {
	text, rows := rendered(t, cluster(), "")
	assertRow(t, text, rows["n4"], map[string]string{"SINCE": "45s", "CAP": "-", "APPLIED (W)": "-", "GPU CAP": "300 W",
		"GPU APPLIED (W)": "300,280", "RESULT": "applied/nvml", "ANSWERED": "yes", "AGENT": "Confirmed", "WHY": "selected for eco"})
}

func TestExcludedNodesAndOneNode(t *testing.T) {
	text, rows := rendered(t, cluster(), "")
	if len(rows) != 6 {
		t.Fatalf("%d rows, want 6 (n1-n5, n9):\n%s", len(rows), text)
	}
	assertRow(t, text, rows["n9"], map[string]string{"PROFILE": "-", "STATE": "Excluded", "RESULT": "-", "ANSWERED": "-",
		"AGENT": "-", "PERF PODS": "-", "WHY": "NoPowerControl; no RAPL, no cpufreq"})
	if lines := strings.Split(text, "\n"); !strings.HasPrefix(lines[2], "n1 ") || !strings.HasPrefix(lines[7], "n9 ") {
		t.Errorf("rows not sorted by node:\n%s", text)
	}
	text, rows = rendered(t, cluster(), "n2")
	if len(rows) != 1 || rows["n2"] == nil {
		t.Errorf("--node n2:\n%s", text)
	}
}

func TestAMessageOnSeveralLinesKeepsTheColumnsApart(t *testing.T) {
	s := snapshot{profiles: []unstructured.Unstructured{npp("n1", 2, map[string]any{"profile": "eco",
		"cpu": map[string]any{"packagePowerCapWatts": 100.0}},
		map[string]any{"state": "ActiveEco", "reason": "selected  for\teco", "applied": map[string]any{"generation": int64(2),
			"cpu": map[string]any{"result": "Error", "backend": "http", "message": "POST failed:\n  503  Service Unavailable"}}})}}
	text, rows := rendered(t, s, "")
	assertRow(t, text, rows["n1"], map[string]string{"RESULT": "error/http", "ANSWERED": "yes",
		"WHY": "selected for eco; agent: POST failed: 503 Service Unavailable"})
	if !strings.HasPrefix(text, "Joulie: no Joulie resource named joulie") {
		t.Errorf("summary without a Joulie resource:\n%s", text)
	}
}

func TestAppliedFigures(t *testing.T) {
	status := func(applied map[string]any) map[string]any {
		return map[string]any{"status": map[string]any{"applied": applied}}
	}
	for _, c := range []struct {
		applied map[string]any
		cpu     string
		gpu     string
	}{
		{map[string]any{}, "-", "-"},
		{map[string]any{"cpu": map[string]any{"throttlePercent": int64(40)}}, "throttle 40%", "-"},
		{map[string]any{"cpu": map[string]any{"watts": 99.5, "throttlePercent": int64(40)}}, "99.5", "-"},
		{map[string]any{"gpu": map[string]any{"boards": boards(350)}}, "-", "350"},
		{map[string]any{"gpu": map[string]any{"boards": boards(300, 300, 300, 300, 300, 300, 300, 280)}}, "-", "8 boards 280-300"},
		{map[string]any{"gpu": map[string]any{"boards": []any{map[string]any{"index": int64(1), "watts": 200.0},
			map[string]any{"index": int64(0), "watts": 250.0}, map[string]any{"index": int64(2)}}}}, "-", "250,200"},
	} {
		obj := status(c.applied)
		if got := cpuApplied(obj); got != c.cpu {
			t.Errorf("cpuApplied(%v) = %q, want %q", c.applied, got, c.cpu)
		}
		if got := gpuApplied(obj); got != c.gpu {
			t.Errorf("gpuApplied(%v) = %q, want %q", c.applied, got, c.gpu)
		}
	}
}

func TestAges(t *testing.T) {
	for in, want := range map[string]string{"2026-11-24T11:59:15Z": "45s", "2026-11-24T11:48:00Z": "12m",
		"2026-11-24T09:00:00Z": "3h", "2026-11-22T10:00:00Z": "2d", "": "-", "soon": "-"} {
		if got := age(in, now); got != want {
			t.Errorf("age(%q) = %q, want %q", in, got, want)
		}
	}
}

// fakeCluster is an API server that serves the Joulie resource and NodePowerProfiles and nothing else: a request for
// anything more (TelemetryProfiles, Pods) fails the test.
func fakeCluster(objects ...runtime.Object) *dynamicfake.FakeDynamicClient {
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		joulies: "JoulieList", nodePowerProfiles: "NodePowerProfileList"}, objects...)
}

func readsOnlyJoulieAndNodePowerProfiles(t *testing.T, client *dynamicfake.FakeDynamicClient) {
	t.Helper()
	for _, a := range client.Actions() {
		if r := a.GetResource().Resource; r != "joulies" && r != "nodepowerprofiles" {
			t.Errorf("%s %s: the plugin reads only the Joulie resource and NodePowerProfiles", a.GetVerb(), r)
		}
	}
}

func TestListReadsTheJoulieResourceAndTheNodePowerProfilesOnly(t *testing.T) {
	s := cluster()
	n1 := s.profiles[0]
	client := fakeCluster(s.joulie, &n1)
	got, err := list(context.Background(), client)
	if err != nil {
		t.Fatal(err)
	}
	if got.joulie == nil || len(got.profiles) != 1 || got.profiles[0].GetName() != "node-n1" {
		t.Errorf("listed %+v", got)
	}
	readsOnlyJoulieAndNodePowerProfiles(t, client)
}

// syncBuffer is the output --watch writes while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestWatchRedrawsWhenANodePowerProfileChanges(t *testing.T) {
	s := cluster()
	n1 := s.profiles[0]
	client := fakeCluster(s.joulie, &n1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	done := make(chan error, 1)
	go func() { done <- watchStatus(ctx, client, &out, "") }()
	eventually(t, func() bool { return strings.Contains(out.String(), "DrainingPerformance") }, out.String)

	changed := n1.DeepCopy()
	changed.SetGeneration(5)
	_ = unstructured.SetNestedField(changed.Object, "ActiveEco", "status", "state")
	if _, err := client.Resource(nodePowerProfiles).Update(ctx, changed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool {
		text := out.String()
		last := text[strings.LastIndex(text, "--- "):]
		return strings.Count(text, "--- ") == 2 && strings.Contains(last, "ActiveEco") && strings.Contains(last, "no (gen 4/5)")
	}, out.String)
	cancel()
	if err := <-done; err != nil {
		t.Errorf("watch ended with %v", err)
	}
	readsOnlyJoulieAndNodePowerProfiles(t, client)
}

func eventually(t *testing.T, ok func() bool, show func() string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("not so within 10s:\n%s", show())
}

func TestMustGatherRunsTheScriptBesideTheResolvedBinary(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	if err := os.MkdirAll(store, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho \"must-gather $*\"\n"
	if err := os.WriteFile(filepath.Join(store, "kubectl-joulie-must_gather"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(store, "kubectl-joulie"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	// as krew installs it: a link on the PATH to the binary in the plugin's directory
	link := filepath.Join(dir, "kubectl-joulie")
	if err := os.Symlink(filepath.Join(store, "kubectl-joulie"), link); err != nil {
		t.Fatal(err)
	}
	executable = func() (string, error) { return link, nil }
	defer func() { executable = os.Executable }()
	var out bytes.Buffer
	if err := run([]string{"must-gather", "--dest", "x"}, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "must-gather --dest x\n" {
		t.Fatalf("the script got %q", got)
	}
	if err := os.Remove(filepath.Join(store, "kubectl-joulie-must_gather")); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"must-gather"}, &out); err == nil || !strings.Contains(err.Error(), "not found beside") {
		t.Fatalf("without the script: %v", err)
	}
}
