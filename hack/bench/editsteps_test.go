package main

import (
	"reflect"
	"testing"
	"time"
)

func TestSplitEdits(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	for _, tc := range []struct {
		name    string
		edits   []editTimes
		applies []applyTimes
		want    [][]time.Duration // each edit's steps, in the order of the edits matched
	}{{
		name:    "the four steps of one edit",
		edits:   []editTimes{{sent: at(0), patched: at(10), seen: at(1000)}},
		applies: []applyTimes{{received: at(900), answered: at(950)}},
		want:    [][]time.Duration{{ms(10), ms(890), ms(50), ms(50)}},
	}, {
		name: "the last apply while the edit is pending is the one that landed it",
		edits: []editTimes{{sent: at(0), patched: at(10), seen: at(1000)},
			{sent: at(2000), patched: at(2010), seen: at(2100)}},
		applies: []applyTimes{{received: at(-50), answered: at(-40)}, {received: at(100), answered: at(110)},
			{received: at(900), answered: at(950)}, {received: at(1500), answered: at(1510)},
			{received: at(2050), answered: at(2060)}},
		want: [][]time.Duration{{ms(10), ms(890), ms(50), ms(50)}, {ms(10), ms(40), ms(10), ms(40)}},
	}, {
		name: "the operator saw the edit before the patch returned, the harness the Deployment before the " +
			"apply's answer: no step below 0, and they add up",
		edits:   []editTimes{{sent: at(0), patched: at(300), seen: at(1000)}},
		applies: []applyTimes{{received: at(200), answered: at(1100)}},
		want:    [][]time.Duration{{ms(200), 0, ms(800), 0}},
	}, {
		name:    "an edit with no apply in the log is left out",
		edits:   []editTimes{{sent: at(0), patched: at(10), seen: at(1000)}},
		applies: []applyTimes{{received: at(1001), answered: at(1002)}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := splitEdits(tc.edits, tc.applies)
			if len(tc.want) == 0 {
				if !reflect.DeepEqual(got, editSteps{}) {
					t.Fatalf("got %+v, want none", got)
				}
				return
			}
			for step := range editStepNames {
				var ds []time.Duration
				for _, w := range tc.want {
					ds = append(ds, w[step])
				}
				if want := summarize(ds); got.Steps[step] != want {
					t.Errorf("step %q: got %+v, want %+v", editStepNames[step], got.Steps[step], want)
				}
			}
			var slowest []time.Duration
			var longest time.Duration
			for i, w := range tc.want {
				var total time.Duration
				for _, d := range w {
					total += d
				}
				if e := tc.edits[i]; total != e.seen.Sub(e.sent) {
					t.Fatalf("the test's steps of edit %d add up to %s, not its time %s", i, total, e.seen.Sub(e.sent))
				}
				if total > longest {
					longest, slowest = total, w
				}
			}
			if !reflect.DeepEqual(got.Slowest, slowest) {
				t.Errorf("slowest edit's steps: got %v, want %v", got.Slowest, slowest)
			}
		})
	}
}
