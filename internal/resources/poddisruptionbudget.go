package resources

import (
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	policyv1ac "k8s.io/client-go/applyconfigurations/policy/v1"
	"k8s.io/utils/ptr"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// The PodDisruptionBudget keeps a WebApp with several replicas serving through node drains. The
// operator creates, patches and deletes it: it deletes the budget it created when the WebApp no
// longer wants one (disabled, or down to one replica), and never one it does not control.
// +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,verbs=get;list;watch;create;patch;delete

// PodDisruptionBudget is ready as soon as it exists: the disruption controller enforces it from then on.
var PodDisruptionBudget Child = kind[*policyv1.PodDisruptionBudget, *policyv1ac.PodDisruptionBudgetApplyConfiguration]{
	name:    "PodDisruptionBudget",
	newObj:  func() *policyv1.PodDisruptionBudget { return &policyv1.PodDisruptionBudget{} },
	wanted:  wantsDisruptionBudget,
	render:  renderPodDisruptionBudget,
	extract: policyv1ac.ExtractPodDisruptionBudget,
}

// wantsDisruptionBudget: by default, as soon as there may be more than one replica to keep serving.
func wantsDisruptionBudget(app *v1beta1.WebApp) bool {
	if !ptr.Deref(app.Spec.Scaling.DisruptionBudget.Enabled, true) {
		return false
	}
	return maxReplicas(app) > 1
}

// maxReplicas is the most replicas app runs: spec.replicas, or the autoscaler's maximum. A budget
// for an autoscaled WebApp that runs one replica for now does no harm: it still lets a drain evict it.
func maxReplicas(app *v1beta1.WebApp) int32 {
	if a := app.Spec.Scaling.Autoscaler; a != nil {
		return a.MaxReplicas
	}
	return ptr.Deref(app.Spec.Replicas, 1)
}

// renderPodDisruptionBudget renders the budget of app's pods.
func renderPodDisruptionBudget(app *v1beta1.WebApp) (*policyv1ac.PodDisruptionBudgetApplyConfiguration, error) {
	maxUnavailable := intstr.FromInt32(1)
	if b := app.Spec.Scaling.DisruptionBudget.MaxUnavailable; b != nil {
		maxUnavailable = *b
	}
	return policyv1ac.PodDisruptionBudget(app.Name, app.Namespace).
		WithLabels(objectLabels(app)).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(policyv1ac.PodDisruptionBudgetSpec().
			WithSelector(metav1ac.LabelSelector().WithMatchLabels(SelectorLabels(app))).
			WithMaxUnavailable(maxUnavailable).
			// A pod that is not ready serves nothing: evicting it costs no availability, and keeping
			// it (a crash-looping pod) would block the drain for good.
			WithUnhealthyPodEvictionPolicy(policyv1.AlwaysAllow)), nil
}
