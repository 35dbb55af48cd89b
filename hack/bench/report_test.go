package main

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestTable(t *testing.T) {
	tb := table{head: []string{"N", "total"}}
	tb.add("100", "1.50 s")
	tb.add("5000", "12.0 s")
	want := "| N    | total  |\n| ---- | ------ |\n| 100  | 1.50 s |\n| 5000 | 12.0 s |\n"
	if got := tb.String(); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{secs(1234 * time.Millisecond), "1.23 s"},
		{secs(83 * time.Second), "83.0 s"},
		{mib(75 << 20), "75 MiB"},
		{rate(300, 2*time.Second), "150.0/s"},
		{rate(1, 0), "-"},
		{ratio(3*time.Second, 2*time.Second), "1.50×"},
		{ratio(time.Second, 0), "-"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestFailures(t *testing.T) {
	ok := runResult{Spec: runSpec{N: 100}, Steady: phase{Requests: map[string]float64{"GET": 3}},
		Resync: phase{Requests: map[string]float64{"GET": 6}}}
	writing := runResult{Spec: runSpec{N: 1000}, Steady: phase{Requests: map[string]float64{"PATCH": 1}},
		Resync: phase{Requests: map[string]float64{"POST": 2}}}
	broken := runResult{Spec: runSpec{N: 5000}, Err: errors.New("create: timed out")}
	if got := failures([]runResult{ok}, 256<<20); len(got) != 0 {
		t.Fatalf("a clean run failed: %v", got)
	}
	bloated := runResult{Spec: runSpec{N: 5000}, Delete: phase{HWM: 300 << 20}}
	// The probe's requests are left out of Requests, not out of the rule.
	probeWriting := runResult{Spec: runSpec{N: 200}, Resync: phase{Probe: map[string]float64{"patch webapps/status": 1}}}
	got := failures([]runResult{ok, writing, broken, bloated, probeWriting}, 256<<20)
	if len(got) != 4 || !strings.Contains(got[0], "sent 3 write requests") || !strings.Contains(got[1], "timed out") ||
		!strings.Contains(got[2], "above the memory limit") || !strings.Contains(got[3], "sent 1 write requests") {
		t.Fatalf("failures = %q", got)
	}
}

func TestReportMarksFailures(t *testing.T) {
	r := report{
		Ceilings: map[int]phase{100: {Total: 2 * time.Second}},
		Floors:   map[int]phase{100: {Total: 4 * time.Second}},
		Results: []runResult{{
			Spec:   runSpec{N: 100, Concurrency: 4, QPS: 50, Burst: 100},
			Create: phase{Total: 5 * time.Second, ByReason: map[string]float64{"patch deployments": 200, "get services": 50}},
			Steady: phase{Requests: map[string]float64{"PATCH": 2}, Elapsed: time.Minute},
		}},
	}
	withChildren := r.Results[0]
	withChildren.Spec.Features = featureSet{"pdb"}
	r.Results = append(r.Results, withChildren)
	out := r.String()
	if !strings.Contains(out, "| 5.00 s | -       | -      | -      | -        |") {
		t.Errorf("a run with optional children is compared with the ceiling and the floor:\n%s", out)
	}
	for _, want := range []string{"FAILED: 2 writes in steady state", "| 2.00 s  | 2.50×  | 4.00 s | 1.25×    |",
		"| 100 | -           | 2.00 s        | -         | 4.00 s      | 2.00×           |",
		"| 2 steady | 0   | 0    | 0   | 2     |",
		"| 1 create | patch deployments                        | 200   | 2.00       |"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestParseInts(t *testing.T) {
	got, err := parseInts("100, 1_000,5000")
	if err != nil || len(got) != 3 || got[1] != 1000 {
		t.Fatalf("parseInts = %v, %v", got, err)
	}
	for _, bad := range []string{"", "x", "0", "-5", "1,,y"} {
		if _, err := parseInts(bad); err == nil {
			t.Errorf("parseInts(%q) accepted", bad)
		}
	}
}

func TestReportScaleAndProbe(t *testing.T) {
	ms := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	scaled := runResult{
		Spec: runSpec{N: 100, Concurrency: 8, QPS: 100, Burst: 200}, Scaled: true,
		Create: phase{Edits: latency{Count: 40, P50: ms(120), P95: ms(400), P99: ms(900), Max: ms(1500)},
			Probe: map[string]float64{"patch deployments": 40, "patch webapps/status": 80},
			EditSteps: editSteps{Steps: []latency{{P50: ms(10), P99: ms(30), Max: ms(40)},
				{P50: ms(90), P99: ms(800), Max: ms(1400)}, {P50: ms(15), P99: ms(40), Max: ms(50)},
				{P50: ms(5), P99: ms(20), Max: ms(30)}}, Slowest: []time.Duration{ms(20), ms(1400), ms(50), ms(30)}}},
		Scale: phase{Total: 3 * time.Second, Latency: latency{Count: 100, P50: ms(800), P95: ms(1200), Max: ms(1400)},
			Requests: map[string]float64{"PATCH": 300, "POST": 10},
			ByReason: map[string]float64{"patch deployments": 100, "patch webapps/status": 200, "create events": 10}},
	}
	twoReplicas := scaled
	twoReplicas.Spec.Replicas = 2
	autoscaled := scaled
	autoscaled.Spec.Features, autoscaled.Scaled = featureSet{"hpa"}, false
	r := report{
		Ceilings:      map[int]phase{100: {Total: time.Second}},
		ScaleCeilings: map[int]phase{100: {Total: 2 * time.Second, Latency: latency{Count: 100, P50: ms(500)}}},
		Results:       []runResult{scaled, twoReplicas, autoscaled},
	}
	out := r.String()
	for _, want := range []string{
		// requests per WebApp 3.10, of which 2 status patches and 0.10 events; 1.50× the scale ceiling
		"| 0.80 s    | 1.20 s | 1.40 s | 3.00 s | 2.00 s  | 1.50×  | 3.10            | " +
			"2.00                  | 0.10          |",
		// more replicas than the ceiling's: no ratio
		"| 0.80 s    | 1.20 s | 1.40 s | 3.00 s | -       | -      | 3.10            |",
		// 40 edits, p50 / p99 / max, 120 requests for the probe, 3 per edit
		"| 1 create   | 40    | 0.12 s | 0.90 s | 1.50 s | 120                             | 3.00     |",
		// the edits by step: p50 / p99 / max, and the slowest edit's share
		"| 1 create   | watch, queue and reconcile until the apply  | 0.09 s | 0.80 s | 1.40 s | 1.40 s              |",
		"| 4 scale  | 0   | 10   | 0   | 300   | 0      | 310   |",
		"| 100 | -           | 1.00 s        | -         | -           | -               | " +
			"0.50 s            | 2.00 s              |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	// The autoscaled run has no scale scenario: neither a scale row nor a "4 scale" request row.
	if n := strings.Count(out, "| 4 scale  | 0   |"); n != 2 {
		t.Errorf("%d request rows for the scale scenario, want 2 (the autoscaled run has none):\n%s", n, out)
	}
	if n := strings.Count(out, "| 1 create   | 40 "); n != 3 {
		t.Errorf("%d probe rows, want 3:\n%s", n, out)
	}
}
