package status

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
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
var NoteTypes = []string{webappv1.ConditionAutoscaling}

// Absent is the Health of a child that does not exist yet.
func Absent(kind string) Health { return Health{Kind: kind, Missing: true} }

// Problem is what keeps a whole WebApp from converging, named by a condition reason: a foreign object
// in the way, a spec the API server refuses, or a transient error. It is an error, so that the
// reconciler can return it from any step and tell it apart from a plain transient error.
type Problem struct {
	Reason  string
	Message string
}

func (p *Problem) Error() string { return p.Message }

// Terminal reports whether retrying the same pass cannot help: only a change by the user (or to
// the cluster, such as a foreign object going away) can.
func (p *Problem) Terminal() bool { return p.Reason != ReasonReconcileError }

// NameConflict: an object the WebApp would create exists and is not controlled by it.
func NameConflict(format string, args ...any) *Problem {
	return &Problem{Reason: ReasonNameConflict, Message: fmt.Sprintf(format, args...)}
}

// InvalidSpec: the WebApp cannot be rendered, or the API server refuses what it renders to.
func InvalidSpec(format string, args ...any) *Problem {
	return &Problem{Reason: ReasonInvalidSpec, Message: fmt.Sprintf(format, args...)}
}

// ApplyDenied: the API server refused to let the operator write a child for a reason outside the
// WebApp's spec: an admission webhook or policy, a quota, RBAC.
func ApplyDenied(format string, args ...any) *Problem {
	return &Problem{Reason: ReasonApplyDenied, Message: fmt.Sprintf(format, args...)}
}

// RouteAPIMissing: the WebApp asks for a route whose API (a CRD) the cluster does not serve.
func RouteAPIMissing(format string, args ...any) *Problem {
	return &Problem{Reason: ReasonRouteAPIMissing, Message: fmt.Sprintf(format, args...)}
}

// MonitoringAPIMissing: the WebApp asks for metrics to be scraped, and the cluster does not serve the
// API (the Prometheus Operator's ServiceMonitor CRD) that says so.
func MonitoringAPIMissing(format string, args ...any) *Problem {
	return &Problem{Reason: ReasonMonitoringAPIMissing, Message: fmt.Sprintf(format, args...)}
}

// ConfigMissing: the pods would read a ConfigMap or Secret that does not exist, and the reference is
// not optional; the message names it and where the spec references it.
func ConfigMissing(format string, args ...any) *Problem {
	return &Problem{Reason: ReasonConfigMissing, Message: fmt.Sprintf(format, args...)}
}

// InvalidImage: an image reference of the WebApp does not parse, so no pod could pull it.
func InvalidImage(format string, args ...any) *Problem {
	return &Problem{Reason: ReasonInvalidImage, Message: fmt.Sprintf(format, args...)}
}

// ReconcileError: a transient failure, retried with backoff.
func ReconcileError(err error) *Problem {
	return &Problem{Reason: ReasonReconcileError, Message: err.Error()}
}
