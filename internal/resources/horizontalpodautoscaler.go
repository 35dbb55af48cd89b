package resources

import (
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	autoscalingv2ac "k8s.io/client-go/applyconfigurations/autoscaling/v2"
	"k8s.io/utils/ptr"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// The HorizontalPodAutoscaler sets the replicas of the WebApp's Deployment from its pods' CPU or
// memory use. It targets the Deployment, not the WebApp's scale subresource: while autoscaling is
// on, the operator does not set the Deployment's replicas at all, so the autoscaler's writes are
// never undone, and they cost the operator no write either (scaling the WebApp would change its
// spec, which the operator would copy to the Deployment, and which a GitOps tool applying the
// WebApp would put back). The operator creates, patches and deletes it: it deletes the autoscaler
// it created when autoscaling is switched off, and never one it does not control.
// +kubebuilder:rbac:groups=autoscaling,resources=horizontalpodautoscalers,verbs=get;list;watch;create;patch;delete

// HorizontalPodAutoscaler is ready as soon as it exists: the replicas it runs serve whether or not
// it can scale them. Whether it can is the WebApp's Autoscaling condition (autoscalerNote).
var HorizontalPodAutoscaler Child = kind[*autoscalingv2.HorizontalPodAutoscaler, *autoscalingv2ac.HorizontalPodAutoscalerApplyConfiguration]{
	name:    "HorizontalPodAutoscaler",
	newObj:  func() *autoscalingv2.HorizontalPodAutoscaler { return &autoscalingv2.HorizontalPodAutoscaler{} },
	wanted:  Autoscaled,
	render:  renderHorizontalPodAutoscaler,
	extract: autoscalingv2ac.ExtractHorizontalPodAutoscaler,
	health: func(_ *v1beta1.WebApp, h *autoscalingv2.HorizontalPodAutoscaler) status.Health {
		return status.Health{Ready: true, Reason: status.ReasonReady, Message: "the HorizontalPodAutoscaler exists",
			Note: autoscalerNote(h)}
	},
}

// autoscalerNote reads the autoscaler's own conditions into the WebApp's Autoscaling condition:
//
//   - Unknown (AutoscalingPending) until the HorizontalPodAutoscaler controller has reported on the
//     autoscaler's current spec;
//   - False (AutoscalingInactive) when it cannot scale: AbleToScale False (it cannot read or update
//     the Deployment's scale) or ScalingActive False (no metrics: no metrics API, pods without
//     resource requests; or the Deployment scaled to zero), with its reason and message;
//   - True (AutoscalingLimited) when it works but wants more replicas than its maximum (ScalingLimited,
//     TooManyReplicas);
//   - True (AutoscalingActive) otherwise.
//
// The HPA controller rewrites its status on every change of its metrics and recommendations; only its
// verdict, the reason and message of a failing condition (which do not vary while it fails), and the
// spec's bounds go into the note, so that none of that rewriting costs a status write of the WebApp.
// Its lastTransitionTimes are never copied.
func autoscalerNote(h *autoscalingv2.HorizontalPodAutoscaler) *status.Note {
	n := &status.Note{Type: v1beta1.ConditionAutoscaling}
	if og := h.Status.ObservedGeneration; og == nil || *og < h.Generation {
		n.Status, n.Reason = metav1.ConditionUnknown, status.ReasonAutoscalingPending
		n.Message = "the HorizontalPodAutoscaler controller has not reported on the autoscaler's current spec yet"
		return n
	}
	find := func(t autoscalingv2.HorizontalPodAutoscalerConditionType) *autoscalingv2.HorizontalPodAutoscalerCondition {
		for i := range h.Status.Conditions {
			if h.Status.Conditions[i].Type == t {
				return &h.Status.Conditions[i]
			}
		}
		return nil
	}
	for _, t := range []autoscalingv2.HorizontalPodAutoscalerConditionType{autoscalingv2.AbleToScale, autoscalingv2.ScalingActive} {
		switch c := find(t); {
		case c == nil:
			n.Status, n.Reason = metav1.ConditionUnknown, status.ReasonAutoscalingPending
			n.Message = fmt.Sprintf("the HorizontalPodAutoscaler has not reported %s yet", t)
			return n
		case c.Status != corev1.ConditionTrue:
			n.Status, n.Reason = metav1.ConditionFalse, status.ReasonAutoscalingInactive
			n.Message = fmt.Sprintf("the HorizontalPodAutoscaler cannot scale the Deployment: %s is %s (%s): %s; "+
				"the replicas stay as they are", t, c.Status, c.Reason, c.Message)
			return n
		}
	}
	bounds := fmt.Sprintf("between %d and %d replicas", ptr.Deref(h.Spec.MinReplicas, 1), h.Spec.MaxReplicas)
	// At its minimum, an autoscaler is idle, which is normal; at its maximum, the app may need more.
	if c := find(autoscalingv2.ScalingLimited); c != nil && c.Status == corev1.ConditionTrue && c.Reason == tooManyReplicas {
		n.Status, n.Reason = metav1.ConditionTrue, status.ReasonAutoscalingLimited
		n.Message = fmt.Sprintf("the HorizontalPodAutoscaler scales the Deployment %s, and is held at its maximum: %s",
			bounds, c.Message)
		return n
	}
	n.Status, n.Reason = metav1.ConditionTrue, status.ReasonAutoscalingActive
	n.Message = "the HorizontalPodAutoscaler reads its metrics and scales the Deployment " + bounds
	return n
}

// tooManyReplicas is the reason of the ScalingLimited condition of an autoscaler held at its maximum.
const tooManyReplicas = "TooManyReplicas"

// defaultTargetCPU is the autoscaler's own default target, made explicit.
const defaultTargetCPU = 80

// renderHorizontalPodAutoscaler renders the autoscaler of app's Deployment.
func renderHorizontalPodAutoscaler(app *v1beta1.WebApp) (*autoscalingv2ac.HorizontalPodAutoscalerApplyConfiguration, error) {
	a := app.Spec.Scaling.Autoscaler
	spec := autoscalingv2ac.HorizontalPodAutoscalerSpec().
		WithScaleTargetRef(autoscalingv2ac.CrossVersionObjectReference().
			WithAPIVersion("apps/v1").WithKind("Deployment").WithName(app.Name)).
		WithMinReplicas(ptr.Deref(a.MinReplicas, 1)).
		WithMaxReplicas(a.MaxReplicas)
	t := ptr.Deref(a.Targets, v1beta1.AutoscalerTargets{})
	cpu, memory := t.CPUUtilization, t.MemoryUtilization
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

func scalingRules(r *v1beta1.ScalingRules) *autoscalingv2ac.HPAScalingRulesApplyConfiguration {
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
func Autoscaled(app *v1beta1.WebApp) bool { return app.Spec.Scaling.Autoscaler != nil }
