// Package status computes a WebApp's status from what the reconciler observed.
//
// Compute is a pure function of (WebApp, Observation, now): no client, no clock, no randomness. That
// makes every condition reason testable in a table and lets the reconciler write status only when
// Compute returns something different from what is stored.
package status

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/render"
)

// Condition reasons. They are part of the API: users and tools match on them.
const (
	ReasonReady                    = "Ready"
	ReasonScaledToZero             = "ScaledToZero"
	ReasonCreating                 = "Creating"
	ReasonRolloutInProgress        = "RolloutInProgress"
	ReasonReplicasUnavailable      = "ReplicasUnavailable"
	ReasonProgressDeadlineExceeded = "ProgressDeadlineExceeded"
	ReasonNameConflict             = "NameConflict"
	ReasonInvalidSpec              = "InvalidSpec"
	ReasonReconcileError           = "ReconcileError"
	ReasonPodFailing               = "PodFailing"

	ReasonMinimumReplicasAvailable   = "MinimumReplicasAvailable"
	ReasonMinimumReplicasUnavailable = "MinimumReplicasUnavailable"
	ReasonDeploymentNotFound         = "DeploymentNotFound"
)

// Observation is what one reconcile pass saw of the world.
type Observation struct {
	// Deployment and Service are the live children controlled by the WebApp, nil when absent.
	Deployment *appsv1.Deployment
	Service    *corev1.Service
	// Conflict describes a same-name child that the WebApp does not control (terminal).
	Conflict string
	// Invalid is the API server's refusal of a rendered child (terminal until the spec changes).
	Invalid string
	// Error is a transient failure that the reconciler retries with backoff.
	Error string
	// PodIssue describes a pod that cannot become ready on its own (see PodIssue), or "".
	PodIssue string
}

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
func Compute(app *webappv1.WebApp, obs Observation, now metav1.Time) webappv1.WebAppStatus {
	st := webappv1.WebAppStatus{
		ObservedGeneration: app.Generation,
		Selector:           render.Selector(app),
		URL:                render.URL(app),
		Conditions:         append([]metav1.Condition(nil), app.Status.Conditions...),
	}
	if d := obs.Deployment; d != nil && obs.Conflict == "" {
		st.Replicas = d.Status.Replicas
		st.ReadyReplicas = d.Status.ReadyReplicas
		st.AvailableReplicas = d.Status.AvailableReplicas
		st.UpdatedReplicas = d.Status.UpdatedReplicas
	}

	v := evaluate(obs)
	set := func(condType string, status metav1.ConditionStatus, reason, message string) {
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{
			Type: condType, Status: status, Reason: reason, Message: message,
			ObservedGeneration: app.Generation, LastTransitionTime: now,
		})
	}
	set(webappv1.ConditionReady, v.ready, v.reason, v.message)
	set(webappv1.ConditionReconciling, boolStatus(v.reconciling), v.reason, ifTrue(v.reconciling, v.message))
	set(webappv1.ConditionStalled, boolStatus(v.stalled), v.reason, ifTrue(v.stalled, v.message))
	availStatus, availReason, availMessage := available(obs)
	set(webappv1.ConditionAvailable, availStatus, availReason, availMessage)
	return st
}

// evaluate decides readiness. The checks run from "cannot progress" to "fully rolled out";
// the first that applies wins.
func evaluate(obs Observation) verdict {
	switch {
	case obs.Invalid != "":
		return stalled(ReasonInvalidSpec, obs.Invalid)
	case obs.Conflict != "":
		return stalled(ReasonNameConflict, obs.Conflict)
	case obs.Error != "":
		return progressing(ReasonReconcileError, obs.Error)
	case obs.Deployment == nil || obs.Service == nil:
		return progressing(ReasonCreating, "creating the Deployment and the Service")
	}
	v := rollout(obs.Deployment)
	if obs.PodIssue != "" && v.ready != metav1.ConditionTrue {
		// Say why the rollout is not progressing: the pod's own reason is what the user must fix.
		v.message = obs.PodIssue + "; " + v.message
		if v.reconciling {
			v.reason = ReasonPodFailing
		}
	}
	return v
}

// rollout reads the Deployment's status the way `kubectl rollout status` does.
func rollout(d *appsv1.Deployment) verdict {
	if d.Status.ObservedGeneration < d.Generation {
		return progressing(ReasonRolloutInProgress,
			fmt.Sprintf("waiting for the Deployment controller to observe generation %d", d.Generation))
	}
	if c := deploymentCondition(d, appsv1.DeploymentProgressing); c != nil &&
		c.Status == corev1.ConditionFalse && c.Reason == "ProgressDeadlineExceeded" {
		return stalled(ReasonProgressDeadlineExceeded,
			fmt.Sprintf("rollout made no progress within %ds: %s", ptr.Deref(d.Spec.ProgressDeadlineSeconds, 600), c.Message))
	}
	desired := ptr.Deref(d.Spec.Replicas, 1)
	s := d.Status
	switch {
	case s.UpdatedReplicas < desired:
		return progressing(ReasonRolloutInProgress,
			fmt.Sprintf("%d of %d replicas updated to the latest spec", s.UpdatedReplicas, desired))
	case s.Replicas > s.UpdatedReplicas:
		return progressing(ReasonRolloutInProgress,
			fmt.Sprintf("%d old replicas pending termination", s.Replicas-s.UpdatedReplicas))
	case s.AvailableReplicas < desired:
		return progressing(ReasonReplicasUnavailable,
			fmt.Sprintf("%d of %d updated replicas available", s.AvailableReplicas, desired))
	case desired == 0:
		return verdict{ready: metav1.ConditionTrue, reason: ReasonScaledToZero, message: "scaled to zero replicas"}
	}
	return verdict{ready: metav1.ConditionTrue, reason: ReasonReady,
		message: fmt.Sprintf("%d of %d replicas available and up to date", s.AvailableReplicas, desired)}
}

// available mirrors the Deployment's own Available condition (minimum availability).
func available(obs Observation) (metav1.ConditionStatus, string, string) {
	if obs.Deployment == nil || obs.Conflict != "" {
		return metav1.ConditionUnknown, ReasonDeploymentNotFound, "the Deployment does not exist yet"
	}
	c := deploymentCondition(obs.Deployment, appsv1.DeploymentAvailable)
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

func deploymentCondition(d *appsv1.Deployment, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range d.Status.Conditions {
		if d.Status.Conditions[i].Type == t {
			return &d.Status.Conditions[i]
		}
	}
	return nil
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
