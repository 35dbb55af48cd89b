package resources

import (
	"testing"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
)

func TestPodDisruptionBudget(t *testing.T) {
	pct := intstr.FromString("50%")
	tests := []struct {
		name     string
		replicas *int32
		budget   *webappv1.DisruptionBudget
		want     *intstr.IntOrString // nil: no budget wanted
	}{
		{name: "one replica by default: no budget"},
		{name: "one replica", replicas: ptr.To[int32](1)},
		{name: "scaled to zero", replicas: ptr.To[int32](0)},
		{name: "two replicas: one may go at a time", replicas: ptr.To[int32](2), want: ptr.To(intstr.FromInt32(1))},
		{name: "an empty block keeps the defaults", replicas: ptr.To[int32](3), budget: &webappv1.DisruptionBudget{},
			want: ptr.To(intstr.FromInt32(1))},
		{name: "a percentage", replicas: ptr.To[int32](4), budget: &webappv1.DisruptionBudget{MaxUnavailable: &pct}, want: &pct},
		{name: "enabled explicitly", replicas: ptr.To[int32](2), budget: &webappv1.DisruptionBudget{Enabled: ptr.To(true),
			MaxUnavailable: ptr.To(intstr.FromInt32(2))}, want: ptr.To(intstr.FromInt32(2))},
		{name: "switched off", replicas: ptr.To[int32](5), budget: &webappv1.DisruptionBudget{Enabled: ptr.To(false)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := newApp(func(a *webappv1.WebApp) { a.Spec.Replicas, a.Spec.DisruptionBudget = tt.replicas, tt.budget })
			ac, err := PodDisruptionBudget.Desired(hub(t, app))
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == nil {
				if ac != nil {
					t.Fatalf("a budget was rendered: %v", ac)
				}
				return
			}
			if ac == nil {
				t.Fatal("no budget rendered")
			}
			b := typed[policyv1.PodDisruptionBudget](t, ac)
			expect(t, "maxUnavailable", b.Spec.MaxUnavailable, tt.want)
			expect(t, "minAvailable", b.Spec.MinAvailable, nil)
			expect(t, "selector", b.Spec.Selector.MatchLabels, SelectorLabels(hub(t, app)))
			expect(t, "unhealthy pods", b.Spec.UnhealthyPodEvictionPolicy, ptr.To(policyv1.AlwaysAllow))
			expect(t, "labels", b.Labels, objectLabels(hub(t, app)))
			expect(t, "controller", metav1.IsControlledBy(b, app), true)
			expect(t, "name", b.Name+"/"+b.Namespace, "shop/team-a")
		})
	}
}
