package resources

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/intstr"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// The Deployment runs the WebApp's pods. The operator creates and patches it (never updates or
// deletes it: the garbage collector removes it with its owner).
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;patch

// Deployment is the workload child: its rollout is the WebApp's readiness.
var Deployment Child = kind[*appsv1.Deployment, *appsv1ac.DeploymentApplyConfiguration]{
	name:     "Deployment",
	newObj:   func() *appsv1.Deployment { return &appsv1.Deployment{} },
	render:   renderDeployment,
	extract:  appsv1ac.ExtractDeployment,
	health:   deploymentHealth,
	handover: deploymentHandover,
	handsOver: func(owned *appsv1ac.DeploymentApplyConfiguration) bool {
		return owned.Spec != nil && owned.Spec.Replicas != nil
	},
	slim: slimDeployment,
}

// slimDeployment is what the cache keeps of a Deployment: what its Health, the status (its
// revision, the configuration and image its template runs), the rollback and the upgrade policy
// (their annotations) read. Not its pod template, which is most of it: the no-op check compares a
// digest, and a pass that keeps the live template reads the Deployment whole (ErrLiveTemplateNeeded).
func slimDeployment(d *appsv1.Deployment) *appsv1.Deployment {
	out := &appsv1.Deployment{TypeMeta: d.TypeMeta, ObjectMeta: identity(&d.ObjectMeta), Status: d.Status}
	out.Annotations = only(d.Annotations, status.RevisionAnnotation, TemplateAnnotation, RollbackAnnotation)
	out.Spec = appsv1.DeploymentSpec{Replicas: d.Spec.Replicas, Paused: d.Spec.Paused,
		ProgressDeadlineSeconds: d.Spec.ProgressDeadlineSeconds}
	out.Spec.Template.Annotations = only(d.Spec.Template.Annotations, v1beta1.ConfigRevisionAnnotation)
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == ContainerName {
			out.Spec.Template.Spec.Containers = []corev1.Container{{Name: c.Name, Image: c.Image}}
		}
	}
	return out
}

// deploymentHandover hands the replicas over to the autoscaler when autoscaling is switched on and
// the operator owns them (handsOver). Left
// out of the operator's apply, a field that only the operator owned would be removed and the
// Deployment would fall back to one replica until the autoscaler catches up. Applied first under
// HandoverFieldOwner with its live value, the field keeps that value once the operator lets it go,
// and the autoscaler's first scale takes it from there.
func deploymentHandover(app *v1beta1.WebApp, live *appsv1.Deployment) (*appsv1ac.DeploymentApplyConfiguration, bool, error) {
	if !Autoscaled(app) || live.Spec.Replicas == nil {
		return nil, false, nil
	}
	return appsv1ac.Deployment(live.Name, live.Namespace).
		WithSpec(appsv1ac.DeploymentSpec().WithReplicas(*live.Spec.Replicas)), true, nil
}

// PodLabels are the labels the operator sets on every pod of app: the selector's, and managed-by.
func PodLabels(app *v1beta1.WebApp) map[string]string {
	return objectLabels(app)
}

// renderDeployment renders the Deployment that runs app's pods.
func renderDeployment(app *v1beta1.WebApp) (*appsv1ac.DeploymentApplyConfiguration, error) {
	if err := checkImages(app); err != nil {
		return nil, err
	}
	template, err := podTemplate(app)
	if err != nil {
		return nil, err
	}
	spec := appsv1ac.DeploymentSpec().
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(SelectorLabels(app))).
		WithTemplate(template)
	// With an autoscaler, the replicas are its to set: the operator owns no opinion on them.
	if !Autoscaled(app) {
		spec.WithReplicas(ptr.Deref(app.Spec.Replicas, 1))
	}
	// A timing the WebApp leaves unset is left to Kubernetes' default, and not owned.
	r := &app.Spec.Rollout
	if r.ProgressDeadlineSeconds != nil {
		spec.WithProgressDeadlineSeconds(*r.ProgressDeadlineSeconds)
	}
	if r.MinReadySeconds != nil {
		spec.WithMinReadySeconds(*r.MinReadySeconds)
	}
	if r.RevisionHistoryLimit != nil {
		spec.WithRevisionHistoryLimit(*r.RevisionHistoryLimit)
	}
	// Paused, the Deployment controller keeps the pods on the template they run and still scales
	// them; omitted otherwise, so that a WebApp that never pauses owns no such field.
	if r.Paused {
		spec.WithPaused(true)
	}
	spec.WithStrategy(appsv1ac.DeploymentStrategy().WithType(appsv1.RollingUpdateDeploymentStrategyType).
		WithRollingUpdate(rollingUpdate(r.Strategy)))
	return appsv1ac.Deployment(app.Name, app.Namespace).
		WithLabels(objectLabels(app)).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(spec), nil
}

// rollingUpdate renders the rolling update of strategy. A rollout starts new pods before it stops
// old ones (maxUnavailable 0, with Kubernetes' surge of 25%, at least one pod), so fewer pods than
// replicas never serve, unless the WebApp says otherwise. A WebApp that forbids a surge keeps
// Kubernetes' maxUnavailable: with both 0 a rollout could not progress.
func rollingUpdate(strategy *v1beta1.RolloutStrategy) *appsv1ac.RollingUpdateDeploymentApplyConfiguration {
	s := v1beta1.RollingUpdate{}
	if strategy != nil && strategy.RollingUpdate != nil {
		s = *strategy.RollingUpdate
	}
	rolling := appsv1ac.RollingUpdateDeployment()
	if s.MaxSurge != nil {
		rolling.WithMaxSurge(*s.MaxSurge)
	}
	surge, _ := intstr.GetScaledValueFromIntOrPercent(s.MaxSurge, 100, true)
	switch {
	case s.MaxUnavailable != nil:
		rolling.WithMaxUnavailable(*s.MaxUnavailable)
	case s.MaxSurge == nil || surge > 0:
		rolling.WithMaxUnavailable(intstr.FromInt32(0))
	}
	return rolling
}

// deploymentHealth reads the Deployment's status the way `kubectl rollout status` does, except that
// a WebApp that was Ready stays Ready while only its replica count moves (scalingHealth).
func deploymentHealth(app *v1beta1.WebApp, d *appsv1.Deployment) status.Health {
	if d.Status.ObservedGeneration < d.Generation {
		return progressing(status.ReasonRolloutInProgress,
			fmt.Sprintf("waiting for the Deployment controller to observe generation %d", d.Generation))
	}
	// The ReplicaSet cannot create pods (Pod Security admission, a ResourceQuota, a LimitRange, a
	// webhook): no deadline will fix it, and the API server's message says what to change.
	if c := deploymentCondition(d, appsv1.DeploymentReplicaFailure); c != nil && c.Status == corev1.ConditionTrue {
		return status.Health{Stalled: true, Reason: status.ReasonReplicaFailure,
			Message: fmt.Sprintf("pods cannot be created: %s", c.Message)}
	}
	if c := deploymentCondition(d, appsv1.DeploymentProgressing); c != nil &&
		c.Status == corev1.ConditionFalse && c.Reason == "ProgressDeadlineExceeded" {
		return status.Health{Stalled: true, Reason: status.ReasonProgressDeadlineExceeded,
			Message: fmt.Sprintf("rollout made no progress within %ds: %s", ptr.Deref(d.Spec.ProgressDeadlineSeconds, 600), c.Message)}
	}
	desired := ptr.Deref(d.Spec.Replicas, 1)
	s := d.Status
	if d.Spec.Paused && s.UpdatedReplicas < desired {
		return pausedHealth(d, desired)
	}
	if h, ok := scalingHealth(app, d, desired); ok {
		return h
	}
	switch {
	case s.UpdatedReplicas < desired:
		return progressing(status.ReasonRolloutInProgress,
			fmt.Sprintf("%d of %d replicas updated to the latest spec", s.UpdatedReplicas, desired))
	case s.Replicas > s.UpdatedReplicas:
		return progressing(status.ReasonRolloutInProgress,
			fmt.Sprintf("%d old replicas pending termination", s.Replicas-s.UpdatedReplicas))
	case s.AvailableReplicas < desired:
		return progressing(status.ReasonReplicasUnavailable,
			fmt.Sprintf("%d of %d updated replicas available", s.AvailableReplicas, desired))
	case desired == 0:
		return status.Health{Ready: true, Reason: status.ReasonScaledToZero, Message: "scaled to zero replicas"}
	}
	return status.Health{Ready: true, Reason: status.ReasonReady,
		Message: fmt.Sprintf("%d of %d replicas available and up to date", s.AvailableReplicas, desired)}
}

// scalingHealth reads a Deployment whose pods all run its latest template, some of them available,
// while their number moves towards desired: a scale, or a pod being replaced. A WebApp that was
// Ready serves throughout, so it stays Ready, and Reconciling says that the count is not reached yet.
// A template change is never read this way: its old pods, or a generation not yet observed, come first.
func scalingHealth(app *v1beta1.WebApp, d *appsv1.Deployment, desired int32) (status.Health, bool) {
	s := d.Status
	moving := s.UpdatedReplicas != desired || s.AvailableReplicas < desired
	if !moving || desired == 0 || s.Replicas != s.UpdatedReplicas || s.AvailableReplicas == 0 ||
		!meta.IsStatusConditionTrue(app.Status.Conditions, v1beta1.ConditionReady) {
		return status.Health{}, false
	}
	return status.Health{Ready: true, Converging: true, Reason: status.ReasonScaling,
		Message: fmt.Sprintf("scaling to %d replicas: %d available", desired, s.AvailableReplicas)}, true
}

// pausedHealth reads a paused Deployment with pods left on an earlier template: the app serves, as
// long as enough of them are available, and says what waits.
func pausedHealth(d *appsv1.Deployment, desired int32) status.Health {
	s := d.Status
	msg := fmt.Sprintf("paused (spec.rollout.paused): %d of %d replicas run an earlier pod template; set spec.rollout.paused "+
		"to false to roll out the latest", desired-s.UpdatedReplicas, desired)
	if s.AvailableReplicas < desired {
		return progressing(status.ReasonReplicasUnavailable, fmt.Sprintf("%d of %d replicas available; %s",
			s.AvailableReplicas, desired, msg))
	}
	return status.Health{Ready: true, Reason: status.ReasonPaused, Message: msg}
}

func progressing(reason, message string) status.Health {
	return status.Health{Reason: reason, Message: message}
}

func deploymentCondition(d *appsv1.Deployment, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range d.Status.Conditions {
		if d.Status.Conditions[i].Type == t {
			return &d.Status.Conditions[i]
		}
	}
	return nil
}
