package resources

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

func utilization(name corev1.ResourceName, pct int32) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: name, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To(pct)}}}
}

func TestHorizontalPodAutoscaler(t *testing.T) {
	tests := []struct {
		name         string
		autoscaling  *webappv1.Autoscaling
		wantMin      int32
		wantMetrics  []autoscalingv2.MetricSpec
		wantBehavior *autoscalingv2.HorizontalPodAutoscalerBehavior
	}{
		{name: "no autoscaling: no autoscaler"},
		{name: "only a maximum: at least one replica, the autoscaler's 80% CPU",
			autoscaling: &webappv1.Autoscaling{MaxReplicas: 5},
			wantMin:     1, wantMetrics: []autoscalingv2.MetricSpec{utilization(corev1.ResourceCPU, 80)}},
		{name: "memory only: no CPU target added",
			autoscaling: &webappv1.Autoscaling{MinReplicas: ptr.To[int32](2), MaxReplicas: 5, TargetMemoryUtilizationPercentage: ptr.To[int32](70)},
			wantMin:     2, wantMetrics: []autoscalingv2.MetricSpec{utilization(corev1.ResourceMemory, 70)}},
		{name: "both targets and a behavior",
			autoscaling: &webappv1.Autoscaling{MinReplicas: ptr.To[int32](3), MaxReplicas: 9,
				TargetCPUUtilizationPercentage: ptr.To[int32](60), TargetMemoryUtilizationPercentage: ptr.To[int32](90),
				Behavior: &webappv1.ScalingBehavior{
					ScaleUp: &webappv1.ScalingRules{Policies: []webappv1.ScalingPolicy{{Type: "Pods", Value: 2, PeriodSeconds: 60}}},
					ScaleDown: &webappv1.ScalingRules{StabilizationWindowSeconds: ptr.To[int32](600), SelectPolicy: "Min",
						Policies: []webappv1.ScalingPolicy{{Type: "Percent", Value: 10, PeriodSeconds: 60}, {Type: "Pods", Value: 1, PeriodSeconds: 120}}},
				}},
			wantMin:     3,
			wantMetrics: []autoscalingv2.MetricSpec{utilization(corev1.ResourceCPU, 60), utilization(corev1.ResourceMemory, 90)},
			wantBehavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{
				ScaleUp: &autoscalingv2.HPAScalingRules{Policies: []autoscalingv2.HPAScalingPolicy{{Type: "Pods", Value: 2, PeriodSeconds: 60}}},
				ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](600),
					SelectPolicy: ptr.To(autoscalingv2.MinChangePolicySelect),
					Policies:     []autoscalingv2.HPAScalingPolicy{{Type: "Percent", Value: 10, PeriodSeconds: 60}, {Type: "Pods", Value: 1, PeriodSeconds: 120}}},
			}},
		{name: "an empty behavior is the autoscaler's default",
			autoscaling: &webappv1.Autoscaling{MaxReplicas: 2, Behavior: &webappv1.ScalingBehavior{}},
			wantMin:     1, wantMetrics: []autoscalingv2.MetricSpec{utilization(corev1.ResourceCPU, 80)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := newApp(func(a *webappv1.WebApp) { a.Spec.Autoscaling = tt.autoscaling })
			ac := mustRender(t, HorizontalPodAutoscaler, app)
			if tt.autoscaling == nil {
				if ac != nil {
					t.Fatalf("an autoscaler was rendered: %v", ac)
				}
				return
			}
			h := typed[autoscalingv2.HorizontalPodAutoscaler](t, ac)
			expect(t, "target", h.Spec.ScaleTargetRef, autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "shop"})
			expect(t, "min", h.Spec.MinReplicas, ptr.To(tt.wantMin))
			expect(t, "max", h.Spec.MaxReplicas, tt.autoscaling.MaxReplicas)
			expect(t, "metrics", h.Spec.Metrics, tt.wantMetrics)
			expect(t, "behavior", h.Spec.Behavior, tt.wantBehavior)
			expect(t, "labels", h.Labels, objectLabels(hub(t, app)))
			expect(t, "controller", metav1.IsControlledBy(h, app), true)
		})
	}
}

func TestAutoscaledDeploymentLeavesTheReplicasToTheAutoscaler(t *testing.T) {
	app := newApp(func(a *webappv1.WebApp) {
		a.Spec.Replicas = ptr.To[int32](3)
		a.Spec.Autoscaling = &webappv1.Autoscaling{MaxReplicas: 5}
	})
	d := typed[appsv1.Deployment](t, mustRender(t, Deployment, app))
	expect(t, "replicas", d.Spec.Replicas, nil)
	app.Spec.Autoscaling = nil
	d = typed[appsv1.Deployment](t, mustRender(t, Deployment, app))
	expect(t, "replicas", d.Spec.Replicas, ptr.To[int32](3))
}

func TestDeploymentHandsTheReplicasOverOnlyWhileTheOperatorOwnsThem(t *testing.T) {
	managed := func(manager, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationApply, APIVersion: "apps/v1",
			FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(fields)}
	}
	live := func(entries ...metav1.ManagedFieldsEntry) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "team-a", ManagedFields: entries},
			Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](3)}}
	}
	ours := managed(FieldOwner, `{"f:spec":{"f:replicas":{}}}`)
	theirs := managed("kube-controller-manager", `{"f:spec":{"f:replicas":{}}}`)
	autoscaled := newApp(func(a *webappv1.WebApp) { a.Spec.Autoscaling = &webappv1.Autoscaling{MaxReplicas: 5} })
	tests := []struct {
		name string
		app  *webappv1.WebApp
		live *appsv1.Deployment
		want *int32
	}{
		{"not autoscaled: nothing to hand over", newApp(nil), live(ours), nil},
		{"autoscaling switched on while the operator owns the replicas: their live value", autoscaled, live(ours), ptr.To[int32](3)},
		{"the autoscaler owns them already", autoscaled, live(theirs), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ac, err := Deployment.Handover(hub(t, tt.app), tt.live)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == nil {
				if ac != nil {
					t.Fatalf("handed over %v", ac)
				}
				return
			}
			d := typed[appsv1.Deployment](t, ac)
			expect(t, "replicas", d.Spec.Replicas, tt.want)
			expect(t, "template", len(d.Spec.Template.Spec.Containers), 0)
		})
	}
}

// The autoscaler's own conditions, as the HorizontalPodAutoscaler controller writes them, read into the
// WebApp's Autoscaling condition; the autoscaler itself is ready (never holds the WebApp back) in every case.
func TestHorizontalPodAutoscalerHealth(t *testing.T) {
	hpaCond := func(typ autoscalingv2.HorizontalPodAutoscalerConditionType, s corev1.ConditionStatus,
		reason, message string) autoscalingv2.HorizontalPodAutoscalerCondition {
		return autoscalingv2.HorizontalPodAutoscalerCondition{Type: typ, Status: s, Reason: reason, Message: message,
			LastTransitionTime: metav1.NewTime(time.Unix(1000, 0))}
	}
	able := hpaCond(autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededGetScale", "the HPA controller was able to get the target's current scale")
	noMetrics := hpaCond(autoscalingv2.ScalingActive, corev1.ConditionFalse, "FailedGetResourceMetric",
		"the HPA was unable to compute the replica count: failed to get cpu utilization")
	active := hpaCond(autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", "the HPA was able to successfully calculate a replica count")
	tooMany := hpaCond(autoscalingv2.ScalingLimited, corev1.ConditionTrue, "TooManyReplicas", "the desired replica count is more than the maximum replica count")
	within := hpaCond(autoscalingv2.ScalingLimited, corev1.ConditionFalse, "DesiredWithinRange", "the desired count is within the acceptable range")
	tests := []struct {
		name       string
		observed   *int64
		conditions []autoscalingv2.HorizontalPodAutoscalerCondition
		want       metav1.ConditionStatus
		reason     string
		message    []string
	}{
		{name: "not reported yet", want: metav1.ConditionUnknown, reason: status.ReasonAutoscalingPending,
			message: []string{"has not reported"}},
		{name: "reported on an older spec", observed: ptr.To[int64](1), conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{able, active},
			want: metav1.ConditionUnknown, reason: status.ReasonAutoscalingPending, message: []string{"current spec"}},
		{name: "reported, but not yet whether it can read metrics", observed: ptr.To[int64](2),
			conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{able},
			want:       metav1.ConditionUnknown, reason: status.ReasonAutoscalingPending, message: []string{"ScalingActive"}},
		{name: "no metrics API", observed: ptr.To[int64](2), conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{able, noMetrics},
			want: metav1.ConditionFalse, reason: status.ReasonAutoscalingInactive,
			message: []string{"ScalingActive is False (FailedGetResourceMetric)", "failed to get cpu utilization"}},
		{name: "cannot get the scale", observed: ptr.To[int64](2), conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
			hpaCond(autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale", "deployments.apps \"shop\" not found"), noMetrics},
			want: metav1.ConditionFalse, reason: status.ReasonAutoscalingInactive, message: []string{"AbleToScale is False (FailedGetScale)"}},
		{name: "scaling", observed: ptr.To[int64](2), conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{able, active, within},
			want: metav1.ConditionTrue, reason: status.ReasonAutoscalingActive, message: []string{"between 2 and 6 replicas"}},
		{name: "held at its maximum", observed: ptr.To[int64](2), conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{able, active, tooMany},
			want: metav1.ConditionTrue, reason: status.ReasonAutoscalingLimited, message: []string{"held at its maximum", "more than the maximum"}},
		{name: "idle at its minimum", observed: ptr.To[int64](2), conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{able, active,
			hpaCond(autoscalingv2.ScalingLimited, corev1.ConditionTrue, "TooFewReplicas", "the desired replica count is less than the minimum replica count")},
			want: metav1.ConditionTrue, reason: status.ReasonAutoscalingActive, message: []string{"between 2 and 6 replicas"}},
	}
	app := &webappv1.WebApp{Spec: webappv1.WebAppSpec{Autoscaling: &webappv1.Autoscaling{MinReplicas: ptr.To[int32](2), MaxReplicas: 6}}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Generation: 2},
				Spec:   autoscalingv2.HorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](2), MaxReplicas: 6},
				Status: autoscalingv2.HorizontalPodAutoscalerStatus{ObservedGeneration: tc.observed, Conditions: tc.conditions}}
			got := HorizontalPodAutoscaler.Health(hub(t, app), h)
			if !got.Ready || got.Note == nil {
				t.Fatalf("Health = %+v, want ready with a note", got)
			}
			n := got.Note
			if n.Type != webappv1.ConditionAutoscaling || n.Status != tc.want || n.Reason != tc.reason {
				t.Errorf("note = %+v, want %s %s %s", n, webappv1.ConditionAutoscaling, tc.want, tc.reason)
			}
			for _, m := range tc.message {
				if !strings.Contains(n.Message, m) {
					t.Errorf("message %q lacks %q", n.Message, m)
				}
			}

			// What the HPA controller rewrites without changing its verdict (its recommendations, the
			// replicas, the transition times) must not change the note, or every rewrite would cost the
			// WebApp a status write.
			moved := h.DeepCopy()
			moved.Status.CurrentReplicas, moved.Status.DesiredReplicas = 5, 6
			moved.Status.LastScaleTime = ptr.To(metav1.NewTime(time.Unix(5000, 0)))
			for i := range moved.Status.Conditions {
				c := &moved.Status.Conditions[i]
				c.LastTransitionTime = metav1.NewTime(time.Unix(9000, 0))
				if c.Status == corev1.ConditionTrue && c.Type != autoscalingv2.ScalingLimited {
					c.Reason, c.Message = c.Reason+"Again", "recommended size 5 matches current size"
				}
			}
			if again := HorizontalPodAutoscaler.Health(hub(t, app), moved).Note; *again != *n {
				t.Errorf("the note moved with the autoscaler's status:\n%+v\n%+v", n, again)
			}
		})
	}
}
