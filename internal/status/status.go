// Package status computes a WebApp's status from what the reconciler observed.
//
// Compute is a pure function of (WebApp, Observation, now): no client, no clock, no randomness. That
// makes every condition reason testable in a table and lets the reconciler write status only when
// Compute returns something different from what is stored. How each kind of child reads (its Health)
// is decided next to the child, in package resources; this package combines those verdicts into the
// WebApp's four kstatus conditions.
package status

import (
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// Observation is what one reconcile pass saw of the world.
type Observation struct {
	// Children is the Health of each child, in the order the reconciler applies them; the first,
	// the workload, speaks for the WebApp once every child is ready.
	Children []Health
	// Deployment is the live workload controlled by the WebApp (nil when absent or not ours): its
	// replica counts and availability are the WebApp's.
	Deployment *appsv1.Deployment
	// Problem keeps the whole WebApp from converging (nil when there is none).
	Problem *Problem
	// PodIssue is a pod that cannot become ready on its own (FindPodIssue), or nil.
	PodIssue *PodIssue
	// Selector is reported as it is; URL too, unless a ready child exposes the WebApp elsewhere
	// (Health.URL).
	Selector, URL string
	// TemplateHeld: the operator renders another pod template than the one the Deployment runs,
	// for the same spec and configuration (a newer operator's), and keeps the running one until the
	// WebApp next changes (resources.TemplateHeld).
	TemplateHeld bool
	// SecretRolloutsOff: the pods read a Secret and would roll on its changes, but the operator does
	// not watch Secrets.
	SecretRolloutsOff bool
	// RolledBack is the rollback in force for the WebApp's generation: made by this pass, or
	// recorded on the Deployment; nil when there is none.
	RolledBack *v1beta1.RollbackStatus
}

// TemplateHeldNote ends the Ready message of a WebApp whose Deployment keeps a template an earlier
// version of the operator rendered.
const TemplateHeldNote = "this version of the operator renders a different pod template, which rolls out " +
	"with the next change of the WebApp"

// SecretRolloutsOffNote ends the Ready message of a WebApp whose pods read a Secret that the
// operator does not watch.
const SecretRolloutsOffNote = "the operator does not watch Secrets, so a change of a Secret the pods read " +
	"rolls nothing (docs/security.md)"

// verdict is the outcome of evaluating the observation: the Ready condition plus whether the
// operator is still converging or has stalled.
type verdict struct {
	ready       metav1.ConditionStatus
	reason      string
	message     string
	reconciling bool
	stalled     bool
}

// Compute returns the status that app should have given obs. Conditions whose status does not
// change keep their lastTransitionTime; changed ones get now.
func Compute(app *v1beta1.WebApp, obs Observation, now metav1.Time) v1beta1.WebAppStatus {
	st := v1beta1.WebAppStatus{
		ObservedGeneration: app.Generation,
		Selector:           obs.Selector,
		URL:                obs.URL,
		Conditions:         append([]metav1.Condition(nil), app.Status.Conditions...),
	}
	for _, h := range obs.Children {
		if h.Ready && h.URL != "" {
			st.URL = h.URL
		}
	}
	// With a same-name object in the way, what the reconciler saw may not be ours to report.
	workload := obs.Deployment
	if obs.Problem != nil && obs.Problem.Reason == ReasonNameConflict {
		workload = nil
	}
	if d := workload; d != nil {
		st.Replicas = d.Status.Replicas
		st.ReadyReplicas = d.Status.ReadyReplicas
		st.AvailableReplicas = d.Status.AvailableReplicas
		st.UpdatedReplicas = d.Status.UpdatedReplicas
		// What the template carries, not what this pass computed: while a referenced object is
		// missing, the Deployment keeps (and reports) the configuration its pods run.
		st.ConfigRevision = d.Spec.Template.Annotations[v1beta1.ConfigRevisionAnnotation]
	}

	if workload != nil {
		st.RolledBack = obs.RolledBack
	}
	v := evaluate(obs, st.RolledBack)
	if obs.TemplateHeld && v.ready == metav1.ConditionTrue {
		v.message += "; " + TemplateHeldNote
	}
	if obs.SecretRolloutsOff {
		v.message += "; " + SecretRolloutsOffNote
	}
	st.Revisions = recordRevision(app.Status.Revisions, app, workload, v, st.RolledBack != nil, now)
	set := func(condType string, status metav1.ConditionStatus, reason, message string) {
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{
			Type: condType, Status: status, Reason: reason, Message: message,
			ObservedGeneration: app.Generation, LastTransitionTime: now,
		})
	}
	set(v1beta1.ConditionReady, v.ready, v.reason, v.message)
	set(v1beta1.ConditionReconciling, boolStatus(v.reconciling), v.reason, ifTrue(v.reconciling, v.message))
	set(v1beta1.ConditionStalled, boolStatus(v.stalled), v.reason, ifTrue(v.stalled, v.message))
	availStatus, availReason, availMessage := available(workload)
	set(v1beta1.ConditionAvailable, availStatus, availReason, availMessage)
	// The children's notes, which Ready does not depend on. A note that did not change keeps its
	// lastTransitionTime, and what a child copies into one is stable (no counts, no times), so a child
	// whose status moves without changing its verdict costs no status write.
	for _, t := range NoteTypes {
		n := note(obs.Children, t)
		if n == nil {
			meta.RemoveStatusCondition(&st.Conditions, t)
			continue
		}
		set(t, n.Status, n.Reason, n.Message)
	}
	return st
}

// evaluate decides readiness. The checks run from "cannot progress" to "fully rolled out";
// the first that applies wins.
func evaluate(obs Observation, rolledBack *v1beta1.RollbackStatus) verdict {
	if p := obs.Problem; p != nil {
		if p.Terminal() {
			return stalled(p.Reason, p.Message)
		}
		return progressing(p.Reason, p.Message)
	}
	var missing []string
	for _, h := range obs.Children {
		if h.Missing {
			missing = append(missing, h.Kind)
		}
	}
	if len(missing) > 0 || len(obs.Children) == 0 {
		return progressing(ReasonCreating, "creating the "+strings.Join(missing, " and the "))
	}
	for i, h := range obs.Children {
		if h.Ready {
			continue
		}
		if i == 0 && rolledBack != nil {
			return rolledBackVerdict(rolledBack, h)
		}
		v := fromHealth(h)
		if i == 0 && obs.PodIssue != nil {
			v = withPodIssue(v, obs.PodIssue)
		}
		return v
	}
	if rolledBack != nil {
		return rolledBackVerdict(rolledBack, obs.Children[0])
	}
	return fromHealth(obs.Children[0])
}

// note is the note of type t that a child reports, or nil.
func note(children []Health, t string) *Note {
	for _, h := range children {
		if h.Note != nil && h.Note.Type == t && !h.Missing {
			return h.Note
		}
	}
	return nil
}

// withPodIssue says why a rollout is not progressing: the pod's own reason is what the user must fix.
// An issue no retry can cure stalls the WebApp at once, under its own reason, rather than after the
// progress deadline.
func withPodIssue(v verdict, issue *PodIssue) verdict {
	message := issue.Message + "; " + v.message
	switch {
	case issue.Terminal():
		return stalled(issue.Reason, message)
	case v.reconciling:
		v.reason = issue.Reason
	}
	v.message = message
	return v
}

func fromHealth(h Health) verdict {
	switch {
	case h.Ready:
		return verdict{ready: metav1.ConditionTrue, reason: h.Reason, message: h.Message, reconciling: h.Converging}
	case h.Stalled:
		return stalled(h.Reason, h.Message)
	}
	return progressing(h.Reason, h.Message)
}

// available mirrors the Deployment's own Available condition (minimum availability).
func available(d *appsv1.Deployment) (metav1.ConditionStatus, string, string) {
	if d == nil {
		return metav1.ConditionUnknown, ReasonDeploymentNotFound, "the Deployment does not exist yet"
	}
	var c *appsv1.DeploymentCondition
	for i := range d.Status.Conditions {
		if d.Status.Conditions[i].Type == appsv1.DeploymentAvailable {
			c = &d.Status.Conditions[i]
		}
	}
	switch {
	case c == nil:
		return metav1.ConditionUnknown, ReasonMinimumReplicasUnavailable, "the Deployment has not reported availability yet"
	case c.Status == corev1.ConditionTrue:
		return metav1.ConditionTrue, ReasonMinimumReplicasAvailable, c.Message
	}
	return metav1.ConditionStatus(c.Status), ReasonMinimumReplicasUnavailable, c.Message
}

func progressing(reason, message string) verdict {
	return verdict{ready: metav1.ConditionFalse, reason: reason, message: message, reconciling: true}
}

// stalled is terminal: Reconciling goes False so that kstatus reports Failed rather than InProgress.
func stalled(reason, message string) verdict {
	return verdict{ready: metav1.ConditionFalse, reason: reason, message: message, stalled: true}
}

func boolStatus(b bool) metav1.ConditionStatus {
	if b {
		return metav1.ConditionTrue
	}
	return metav1.ConditionFalse
}

func ifTrue(b bool, s string) string {
	if b {
		return s
	}
	return ""
}
