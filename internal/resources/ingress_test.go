package resources

import (
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

func TestIngress(t *testing.T) {
	backend := networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "shop",
		Port: networkingv1.ServiceBackendPort{Name: PortName}}}
	prefix := func(p string) networkingv1.HTTPIngressPath {
		return networkingv1.HTTPIngressPath{Path: p, PathType: ptr.To(networkingv1.PathTypePrefix), Backend: backend}
	}
	rule := func(host string, paths ...string) networkingv1.IngressRule {
		r := networkingv1.IngressRule{Host: host, IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{}}}
		for _, p := range paths {
			r.HTTP.Paths = append(r.HTTP.Paths, prefix(p))
		}
		return r
	}
	tests := []struct {
		name        string
		ingress     *webappv1.Ingress
		wantClass   *string
		wantRules   []networkingv1.IngressRule
		wantTLS     []networkingv1.IngressTLS
		wantAnnots  map[string]string
		wantURL     string
		wantNoInUse bool
	}{
		{name: "not asked for: no Ingress", wantNoInUse: true},
		{name: "one host, every path, the default class", ingress: &webappv1.Ingress{Hosts: []string{"shop.example.com"}},
			wantRules: []networkingv1.IngressRule{rule("shop.example.com", "/")}, wantURL: "http://shop.example.com/"},
		{name: "hosts, paths, a class, TLS and cert-manager",
			ingress: &webappv1.Ingress{ClassName: "nginx", Hosts: []string{"*.example.com", "shop.example.com"},
				Paths: []string{"/shop", "/api"}, TLS: &webappv1.IngressTLS{SecretName: "shop-tls"},
				Annotations: map[string]webappv1.AnnotationValue{"cert-manager.io/cluster-issuer": "letsencrypt"}},
			wantClass:  ptr.To("nginx"),
			wantRules:  []networkingv1.IngressRule{rule("*.example.com", "/shop", "/api"), rule("shop.example.com", "/shop", "/api")},
			wantTLS:    []networkingv1.IngressTLS{{Hosts: []string{"*.example.com", "shop.example.com"}, SecretName: "shop-tls"}},
			wantAnnots: map[string]string{"cert-manager.io/cluster-issuer": "letsencrypt"},
			wantURL:    "https://shop.example.com/shop"},
		{name: "only a wildcard host: no URL to name", ingress: &webappv1.Ingress{Hosts: []string{"*.example.com"}},
			wantRules: []networkingv1.IngressRule{rule("*.example.com", "/")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := newApp(func(a *webappv1.WebApp) { a.Spec.Ingress = tt.ingress })
			ac := mustRender(t, Ingress, app)
			expect(t, "url", ExternalURL(hub(t, app)), tt.wantURL)
			if tt.wantNoInUse {
				if ac != nil {
					t.Fatalf("an Ingress was rendered: %v", ac)
				}
				return
			}
			ing := typed[networkingv1.Ingress](t, ac)
			expect(t, "class", ing.Spec.IngressClassName, tt.wantClass)
			expect(t, "rules", ing.Spec.Rules, tt.wantRules)
			expect(t, "tls", ing.Spec.TLS, tt.wantTLS)
			expect(t, "annotations", ing.Annotations, tt.wantAnnots)
			expect(t, "labels", ing.Labels, objectLabels(hub(t, app)))
			expect(t, "controller", metav1.IsControlledBy(ing, app), true)
		})
	}
}

func TestIngressHealth(t *testing.T) {
	app := newApp(func(a *webappv1.WebApp) {
		a.Spec.Ingress = &webappv1.Ingress{Hosts: []string{"shop.example.com"}, TLS: &webappv1.IngressTLS{SecretName: "s"}}
	})
	ing := func(class *string, lb ...networkingv1.IngressLoadBalancerIngress) *networkingv1.Ingress {
		return &networkingv1.Ingress{Spec: networkingv1.IngressSpec{IngressClassName: class},
			Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: lb}}}
	}
	tests := []struct {
		name string
		live *networkingv1.Ingress
		want status.Health
	}{
		{"no address yet, default class", ing(nil), status.Health{Kind: "Ingress", Reason: status.ReasonAddressPending,
			Message: "the Ingress has no address yet: waiting for the ingress controller of the cluster's default IngressClass"}},
		{"no address yet, a class", ing(ptr.To("nginx")), status.Health{Kind: "Ingress", Reason: status.ReasonAddressPending,
			Message: `the Ingress has no address yet: waiting for the ingress controller of IngressClass "nginx"`}},
		{"an IP", ing(nil, networkingv1.IngressLoadBalancerIngress{IP: "203.0.113.7"}), status.Health{Kind: "Ingress", Ready: true,
			Reason: status.ReasonReady, Message: "the Ingress has the address 203.0.113.7", URL: "https://shop.example.com/"}},
		{"a host name", ing(nil, networkingv1.IngressLoadBalancerIngress{Hostname: "lb.example.net"}), status.Health{Kind: "Ingress",
			Ready: true, Reason: status.ReasonReady, Message: "the Ingress has the address lb.example.net", URL: "https://shop.example.com/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, "health", Ingress.Health(hub(t, app), tt.live), tt.want)
		})
	}
}
