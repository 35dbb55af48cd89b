package resources

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	autoscalingv2ac "k8s.io/client-go/applyconfigurations/autoscaling/v2"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
)

// The HorizontalPodAutoscaler sets the replicas of the WebApp's Deployment from its pods' CPU or
// memory use. It targets the Deployment, not the WebApp's scale subresource: while autoscaling is
// on, the operator does not set the Deployment's replicas at all, so the autoscaler's writes are
// never undone, and they cost the operator no write either (scaling the WebApp would change its
// spec, which the operator would copy to the Deployment, and which a GitOps tool applying the
// WebApp would put back). The operator creates, patches and deletes it: it deletes the autoscaler
// it created when autoscaling is switched off, and never one it does not control.
// +kubebuilder:rbac:groups=autoscaling,resources=horizontalpodautoscalers,verbs=get;list;watch;create;patch;delete

// HorizontalPodAutoscaler is ready as soon as it exists.
var HorizontalPodAutoscaler Child = kind[*autoscalingv2.HorizontalPodAutoscaler, *autoscalingv2ac.HorizontalPodAutoscalerApplyConfiguration]{
	name:    "HorizontalPodAutoscaler",
	newObj:  func() *autoscalingv2.HorizontalPodAutoscaler { return &autoscalingv2.HorizontalPodAutoscaler{} },
	wanted:  func(app *webappv1.WebApp) bool { return app.Spec.Autoscaling != nil },
	render:  renderHorizontalPodAutoscaler,
	extract: autoscalingv2ac.ExtractHorizontalPodAutoscaler,
}

// defaultTargetCPU is the autoscaler's own default target, made explicit.
const defaultTargetCPU = 80

// renderHorizontalPodAutoscaler renders the autoscaler of app's Deployment.
func renderHorizontalPodAutoscaler(app *webappv1.WebApp) (*autoscalingv2ac.HorizontalPodAutoscalerApplyConfiguration, error) {
	a := app.Spec.Autoscaling
	spec := autoscalingv2ac.HorizontalPodAutoscalerSpec().
		WithScaleTargetRef(autoscalingv2ac.CrossVersionObjectReference().
			WithAPIVersion("apps/v1").WithKind("Deployment").WithName(app.Name)).
		WithMinReplicas(ptr.Deref(a.MinReplicas, 1)).
		WithMaxReplicas(a.MaxReplicas)
	cpu, memory := a.TargetCPUUtilizationPercentage, a.TargetMemoryUtilizationPercentage
	if cpu == nil && memory == nil {
		cpu = ptr.To[int32](defaultTargetCPU)
	}
	for _, m := range []struct {
		name   corev1.ResourceName
		target *int32
	}{{corev1.ResourceCPU, cpu}, {corev1.ResourceMemory, memory}} {
		if m.target != nil {
			spec.WithMetrics(autoscalingv2ac.MetricSpec().
				WithType(autoscalingv2.ResourceMetricSourceType).
				WithResource(autoscalingv2ac.ResourceMetricSource().
					WithName(m.name).
					WithTarget(autoscalingv2ac.MetricTarget().
						WithType(autoscalingv2.UtilizationMetricType).
						WithAverageUtilization(*m.target))))
		}
	}
	if b := a.Behavior; b != nil && (b.ScaleUp != nil || b.ScaleDown != nil) {
		behavior := autoscalingv2ac.HorizontalPodAutoscalerBehavior()
		if b.ScaleUp != nil {
			behavior.WithScaleUp(scalingRules(b.ScaleUp))
		}
		if b.ScaleDown != nil {
			behavior.WithScaleDown(scalingRules(b.ScaleDown))
		}
		spec.WithBehavior(behavior)
	}
	return autoscalingv2ac.HorizontalPodAutoscaler(app.Name, app.Namespace).
		WithLabels(objectLabels(app)).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(spec), nil
}

func scalingRules(r *webappv1.ScalingRules) *autoscalingv2ac.HPAScalingRulesApplyConfiguration {
	out := autoscalingv2ac.HPAScalingRules()
	if r.StabilizationWindowSeconds != nil {
		out.WithStabilizationWindowSeconds(*r.StabilizationWindowSeconds)
	}
	if r.SelectPolicy != "" {
		out.WithSelectPolicy(autoscalingv2.ScalingPolicySelect(r.SelectPolicy))
	}
	for _, p := range r.Policies {
		out.WithPolicies(autoscalingv2ac.HPAScalingPolicy().
			WithType(autoscalingv2.HPAScalingPolicyType(p.Type)).
			WithValue(p.Value).
			WithPeriodSeconds(p.PeriodSeconds))
	}
	return out
}

// Autoscaled reports whether a HorizontalPodAutoscaler, not the operator, sets the replicas of app's
// Deployment.
func Autoscaled(app *webappv1.WebApp) bool { return app.Spec.Autoscaling != nil }
