package status

import (
	"slices"
	"testing"
)

// Every reason a Problem may carry is a documented Ready reason, and only ReconcileError is retried.
func TestProblemReasonsDeclareWhetherTheyAreTerminal(t *testing.T) {
	for reason, terminal := range problemReasons {
		if !slices.Contains(ReadyReasons, reason) {
			t.Errorf("problem reason %s is not one of ReadyReasons", reason)
		}
		if terminal != (reason != ReasonReconcileError) {
			t.Errorf("%s: terminal = %v", reason, terminal)
		}
		if got := NewProblem(reason, "x").Terminal(); got != terminal {
			t.Errorf("NewProblem(%s).Terminal() = %v, want %v", reason, got, terminal)
		}
	}
}
