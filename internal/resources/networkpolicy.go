package resources

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	networkingv1ac "k8s.io/client-go/applyconfigurations/networking/v1"
	"k8s.io/utils/ptr"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// The NetworkPolicy, opt-in, lets only the WebApp's own namespace and the namespaces it lists
// connect to its pods, and only on its ports. The operator creates, patches and deletes it: it
// deletes the policy it created when the WebApp stops asking for one, and never one it does not
// control.
// +kubebuilder:rbac:groups=networking.k8s.io,resources=networkpolicies,verbs=get;list;watch;create;patch;delete

// NetworkPolicy is ready as soon as it exists: the network plugin enforces it from then on.
var NetworkPolicy Child = kind[*networkingv1.NetworkPolicy, *networkingv1ac.NetworkPolicyApplyConfiguration]{
	name:    "NetworkPolicy",
	newObj:  func() *networkingv1.NetworkPolicy { return &networkingv1.NetworkPolicy{} },
	wanted:  func(app *v1beta1.WebApp) bool { return app.Spec.Exposure.NetworkPolicy != nil },
	render:  renderNetworkPolicy,
	extract: networkingv1ac.ExtractNetworkPolicy,
}

// renderNetworkPolicy renders the policy that admits traffic to app's pods.
func renderNetworkPolicy(app *v1beta1.WebApp) (*networkingv1ac.NetworkPolicyApplyConfiguration, error) {
	np := app.Spec.Exposure.NetworkPolicy
	rule := networkingv1ac.NetworkPolicyIngressRule()
	for _, p := range app.Spec.Container.Ports {
		rule.WithPorts(networkingv1ac.NetworkPolicyPort().
			WithProtocol(protocol(p.Protocol)).
			WithPort(intstr.FromString(p.Name)))
	}
	if ptr.Deref(np.SameNamespace, true) {
		// An empty pod selector with no namespace selector: every pod of the policy's namespace.
		rule.WithFrom(networkingv1ac.NetworkPolicyPeer().WithPodSelector(metav1ac.LabelSelector()))
	}
	if len(np.FromNamespaces) > 0 {
		rule.WithFrom(networkingv1ac.NetworkPolicyPeer().WithNamespaceSelector(metav1ac.LabelSelector().
			WithMatchExpressions(metav1ac.LabelSelectorRequirement().
				WithKey(corev1.LabelMetadataName).
				WithOperator(metav1.LabelSelectorOpIn).
				WithValues(np.FromNamespaces...))))
	}
	spec := networkingv1ac.NetworkPolicySpec().
		WithPodSelector(metav1ac.LabelSelector().WithMatchLabels(SelectorLabels(app))).
		WithPolicyTypes(networkingv1.PolicyTypeIngress)
	// A rule without peers would admit everyone: with no peer allowed, the policy admits nobody.
	if len(rule.From) > 0 {
		spec.WithIngress(rule)
	}
	return networkingv1ac.NetworkPolicy(app.Name, app.Namespace).
		WithLabels(objectLabels(app)).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(spec), nil
}
