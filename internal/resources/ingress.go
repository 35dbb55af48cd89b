package resources

import (
	"fmt"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	networkingv1ac "k8s.io/client-go/applyconfigurations/networking/v1"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// The Ingress exposes the WebApp outside the cluster: its hosts and paths go to the WebApp's
// Service. The operator creates, patches and deletes it: it deletes the Ingress it created when the
// WebApp stops asking for one, and never one it does not control. It reads, and never writes, the
// status that the ingress controller gives it.
// +kubebuilder:rbac:groups=networking.k8s.io,resources=ingresses,verbs=get;list;watch;create;patch;delete

// Ingress is ready once its ingress controller has given it an address: until then nothing outside
// the cluster reaches the WebApp through it.
var Ingress Child = kind[*networkingv1.Ingress, *networkingv1ac.IngressApplyConfiguration]{
	name:    "Ingress",
	newObj:  func() *networkingv1.Ingress { return &networkingv1.Ingress{} },
	wanted:  func(app *v1beta1.WebApp) bool { return app.Spec.Exposure.Ingress != nil },
	render:  renderIngress,
	extract: networkingv1ac.ExtractIngress,
	health:  ingressHealth,
}

// renderIngress renders the Ingress of app's hosts and paths.
func renderIngress(app *v1beta1.WebApp) (*networkingv1ac.IngressApplyConfiguration, error) {
	in := app.Spec.Exposure.Ingress
	http := networkingv1ac.HTTPIngressRuleValue()
	for _, path := range ingressPaths(in) {
		http.WithPaths(networkingv1ac.HTTPIngressPath().
			WithPath(path).
			WithPathType(networkingv1.PathTypePrefix).
			WithBackend(networkingv1ac.IngressBackend().
				WithService(networkingv1ac.IngressServiceBackend().
					WithName(app.Name).
					WithPort(networkingv1ac.ServiceBackendPort().WithName(PortName)))))
	}
	spec := networkingv1ac.IngressSpec()
	if in.ClassName != "" {
		spec.WithIngressClassName(in.ClassName)
	}
	for _, host := range in.Hosts {
		spec.WithRules(networkingv1ac.IngressRule().WithHost(host).WithHTTP(http))
	}
	if in.TLS != nil {
		spec.WithTLS(networkingv1ac.IngressTLS().WithHosts(in.Hosts...).WithSecretName(in.TLS.SecretName))
	}
	ing := networkingv1ac.Ingress(app.Name, app.Namespace).
		WithLabels(objectLabels(app)).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(spec)
	if len(in.Annotations) > 0 {
		annotations := make(map[string]string, len(in.Annotations))
		for k, v := range in.Annotations {
			annotations[k] = string(v)
		}
		ing.WithAnnotations(annotations)
	}
	return ing, nil
}

func ingressPaths(in *v1beta1.Ingress) []string {
	if len(in.Paths) == 0 {
		return []string{"/"}
	}
	return in.Paths
}

// ingressHealth: ready, with the WebApp's external URL, once the ingress controller has published
// an address for the Ingress.
func ingressHealth(app *v1beta1.WebApp, ing *networkingv1.Ingress) status.Health {
	if len(ing.Status.LoadBalancer.Ingress) == 0 {
		class := "the cluster's default IngressClass"
		if c := ing.Spec.IngressClassName; c != nil {
			class = fmt.Sprintf("IngressClass %q", *c)
		}
		return status.Health{Reason: status.ReasonAddressPending,
			Message: fmt.Sprintf("the Ingress has no address yet: waiting for the ingress controller of %s", class)}
	}
	lb := ing.Status.LoadBalancer.Ingress[0]
	address := lb.Hostname
	if address == "" {
		address = lb.IP
	}
	return status.Health{Ready: true, Reason: status.ReasonReady, URL: ExternalURL(app),
		Message: fmt.Sprintf("the Ingress has the address %s", address)}
}

// ExternalURL is where app answers through its Ingress: its first host that is not a wildcard and
// its first path, over https with TLS. It is "" when app has no Ingress or only wildcard hosts.
func ExternalURL(app *v1beta1.WebApp) string {
	in := app.Spec.Exposure.Ingress
	if in == nil {
		return ""
	}
	scheme := "http"
	if in.TLS != nil {
		scheme = "https"
	}
	for _, host := range in.Hosts {
		if !strings.HasPrefix(host, "*.") {
			return scheme + "://" + host + ingressPaths(in)[0]
		}
	}
	return ""
}
