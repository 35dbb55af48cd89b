package main

import "time"

// An edit of the probe (probe.go) passes four steps, told apart by the harness's clock and the API
// server's audit log (both on this machine's clock): the edit's own request; its watch event reaching
// the operator, the work queue and the reconcile, until the API server receives the operator's apply
// of the Deployment; the API server answering that apply; and the Deployment's watch event reaching
// the harness. On a saturated control plane this says which of them a slow edit waited in.

// editTimes is one edit, as the harness saw it: when it sent the patch, when the patch returned and
// when its informer saw the Deployment carry the edit.
type editTimes struct{ sent, patched, seen time.Time }

// applyTimes is one of the operator's applies of the probe's Deployment, from the audit log: when
// the API server received it and when it answered.
type applyTimes struct{ received, answered time.Time }

// editStepNames name the steps, in order.
var editStepNames = []string{"the edit's request", "watch, queue and reconcile until the apply",
	"the apply in the API server", "the Deployment's watch event to the harness"}

// editSteps summarises each step over the edits whose apply the audit log shows.
type editSteps struct {
	Steps   []latency // by editStepNames
	Slowest []time.Duration
}

// splitEdits matches each edit with the operator's last apply received while it was pending (edits
// never overlap, so that apply is the one that landed it) and summarises each step. An edit
// without one (no audit log) is left out.
func splitEdits(edits []editTimes, applies []applyTimes) editSteps {
	steps := make([][]time.Duration, len(editStepNames))
	var slowest []time.Duration
	var longest time.Duration
	for _, e := range edits {
		a, ok := landingApply(e, applies)
		if !ok {
			continue
		}
		split := stepsOf(e, a)
		for i, d := range split {
			steps[i] = append(steps[i], d)
		}
		if total := e.seen.Sub(e.sent); total > longest {
			longest, slowest = total, split
		}
	}
	if len(steps[0]) == 0 {
		return editSteps{}
	}
	out := editSteps{Slowest: slowest}
	for _, ds := range steps {
		out.Steps = append(out.Steps, summarize(ds))
	}
	return out
}

// landingApply is the last apply received from e.sent to e.seen.
func landingApply(e editTimes, applies []applyTimes) (applyTimes, bool) {
	var found applyTimes
	ok := false
	for _, a := range applies {
		if !a.received.Before(e.sent) && !a.received.After(e.seen) {
			found, ok = a, true
		}
	}
	return found, ok
}

// stepsOf splits e at the apply a. The operator may see the edit before the harness has the patch's
// answer, and the harness may see the Deployment before the operator has the apply's: each cut is
// kept between the ones around it, so the steps never go below 0 and add up to the edit's time.
func stepsOf(e editTimes, a applyTimes) []time.Duration {
	received := clamp(a.received, e.sent, e.seen)
	patched := clamp(e.patched, e.sent, received)
	answered := clamp(a.answered, received, e.seen)
	return []time.Duration{patched.Sub(e.sent), received.Sub(patched), answered.Sub(received),
		e.seen.Sub(answered)}
}

func clamp(t, lo, hi time.Time) time.Time {
	if t.Before(lo) {
		return lo
	}
	if t.After(hi) {
		return hi
	}
	return t
}
