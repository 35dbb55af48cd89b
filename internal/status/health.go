package status

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// Health is how one child object of a WebApp reads: absent, ready, progressing, or stuck.
type Health struct {
	// Kind names the child ("Deployment") in messages.
	Kind string
	// Missing: the child does not exist (yet).
	Missing bool
	// Ready: the child does its job for the current spec.
	Ready bool
	// Converging: the child is Ready and still moving towards the spec (a Deployment scaling), so the
	// WebApp reports Reconciling too.
	Converging bool
	// Stalled: the child cannot progress without a change by the user.
	Stalled bool
	// Reason and Message say why, as a condition would.
	Reason, Message string
	// URL is the address at which a ready child exposes the WebApp (an admitted route's external
	// URL), or "". It replaces the Observation's URL in status.
	URL string
	// Note is a condition of the WebApp's own that the child reports beside its readiness, and that
	// never blocks it (the autoscaler's verdict on whether it can scale); nil when it has none.
	Note *Note
}

// Note is a WebApp condition that a child reports: its Type is one of NoteTypes.
type Note struct {
	Type            string
	Status          metav1.ConditionStatus
	Reason, Message string
}

// NoteTypes are the condition types that children report as a Note. Compute sets each from the child
// that reports it and removes it when none does: a WebApp that no longer autoscales has no Autoscaling
// condition.
var NoteTypes = []string{v1beta1.ConditionAutoscaling}

// Absent is the Health of a child that does not exist yet.
func Absent(kind string) Health { return Health{Kind: kind, Missing: true} }

// Problem is what keeps a whole WebApp from converging, named by a condition reason: a foreign object
// in the way, a spec the API server refuses, or a transient error. It is an error, so that the
// reconciler can return it from any step and tell it apart from a plain transient error.
type Problem struct {
	Reason  string
	Message string
}

// problemReasons are the reasons a Problem carries, each with whether it is terminal: retrying the
// same pass cannot help, only a change by the user (or to the cluster, such as a foreign object
// going away) can. Terminal problems make the WebApp Stalled; the others are retried with backoff.
var problemReasons = map[string]bool{
	// an object the WebApp would create exists and is not controlled by it
	ReasonNameConflict: true,
	// the WebApp cannot be rendered, or the API server refuses what it renders to
	ReasonInvalidSpec: true,
	// an image reference of the WebApp does not parse, so no pod could pull it
	ReasonInvalidImage: true,
	// the API server refused a write for a reason outside the spec: a webhook, a policy, a quota, RBAC
	ReasonApplyDenied: true,
	// the WebApp asks for a route, and the cluster does not serve the Gateway API
	ReasonRouteAPIMissing: true,
	// the WebApp asks for metrics to be scraped, and the cluster does not serve the ServiceMonitor API
	ReasonMonitoringAPIMissing: true,
	// the pods would read a ConfigMap or Secret that does not exist, and the reference is not optional
	ReasonConfigMissing: true,
	// the pods read a Secret, and the operator, told to roll them on its changes, may not watch Secrets
	ReasonConfigWatchForbidden: true,
	// a transient failure: the API server unreachable, a timeout
	ReasonReconcileError: false,
}

// NewProblem returns a Problem of reason, one of problemReasons, with a formatted message.
func NewProblem(reason, format string, args ...any) *Problem {
	return &Problem{Reason: reason, Message: fmt.Sprintf(format, args...)}
}

func (p *Problem) Error() string { return p.Message }

// Terminal reports whether retrying the same pass cannot help (problemReasons).
func (p *Problem) Terminal() bool { return problemReasons[p.Reason] }

// ReconcileError: a transient failure, retried with backoff.
func ReconcileError(err error) *Problem {
	return &Problem{Reason: ReasonReconcileError, Message: err.Error()}
}
