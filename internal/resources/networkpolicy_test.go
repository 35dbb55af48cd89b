package resources

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
)

func TestNetworkPolicy(t *testing.T) {
	sameNamespace := networkingv1.NetworkPolicyPeer{PodSelector: &metav1.LabelSelector{}}
	namespaces := func(names ...string) networkingv1.NetworkPolicyPeer {
		return networkingv1.NetworkPolicyPeer{NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpIn, Values: names}}}}
	}
	httpPort := networkingv1.NetworkPolicyPort{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromString(PortName))}
	tests := []struct {
		name  string
		np    *webappv1.NetworkPolicy
		ports []webappv1.ContainerPort
		want  []networkingv1.NetworkPolicyIngressRule // nil with np set: admits nobody
	}{
		{name: "not asked for: no policy"},
		{name: "an empty block: the same namespace only, on the app's port", np: &webappv1.NetworkPolicy{},
			want: []networkingv1.NetworkPolicyIngressRule{{Ports: []networkingv1.NetworkPolicyPort{httpPort},
				From: []networkingv1.NetworkPolicyPeer{sameNamespace}}}},
		{name: "and the ingress controller's namespace, on every port",
			np:    &webappv1.NetworkPolicy{FromNamespaces: []string{"ingress-nginx", "monitoring"}},
			ports: []webappv1.ContainerPort{{Name: "metrics", ContainerPort: 9090}, {Name: "dns", ContainerPort: 53, Protocol: "UDP"}},
			want: []networkingv1.NetworkPolicyIngressRule{{Ports: []networkingv1.NetworkPolicyPort{httpPort,
				{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromString("metrics"))},
				{Protocol: ptr.To(corev1.ProtocolUDP), Port: ptr.To(intstr.FromString("dns"))}},
				From: []networkingv1.NetworkPolicyPeer{sameNamespace, namespaces("ingress-nginx", "monitoring")}}}},
		{name: "listed namespaces only", np: &webappv1.NetworkPolicy{SameNamespace: ptr.To(false), FromNamespaces: []string{"gw"}},
			want: []networkingv1.NetworkPolicyIngressRule{{Ports: []networkingv1.NetworkPolicyPort{httpPort},
				From: []networkingv1.NetworkPolicyPeer{namespaces("gw")}}}},
		{name: "nobody: a rule without peers would admit everyone, so there is none",
			np: &webappv1.NetworkPolicy{SameNamespace: ptr.To(false)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := newApp(func(a *webappv1.WebApp) { a.Spec.NetworkPolicy, a.Spec.Ports = tt.np, tt.ports })
			ac := mustRender(t, NetworkPolicy, app)
			if tt.np == nil {
				if ac != nil {
					t.Fatalf("a policy was rendered: %v", ac)
				}
				return
			}
			p := typed[networkingv1.NetworkPolicy](t, ac)
			expect(t, "pods", p.Spec.PodSelector.MatchLabels, SelectorLabels(hub(t, app)))
			expect(t, "types", p.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress})
			expect(t, "ingress", p.Spec.Ingress, tt.want)
			expect(t, "labels", p.Labels, objectLabels(hub(t, app)))
			expect(t, "controller", metav1.IsControlledBy(p, app), true)
		})
	}
}
