package resources

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
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
			expect(t, "labels", h.Labels, objectLabels(app))
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
			ac, err := Deployment.Handover(tt.app, tt.live)
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
