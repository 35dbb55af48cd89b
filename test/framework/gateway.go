package framework

import (
	"context"
	"fmt"
	"maps"
	"slices"

	. "github.com/onsi/ginkgo/v2" //nolint:staticcheck // the suites' shared checks report through Ginkgo
	. "github.com/onsi/gomega"    //nolint:staticcheck // likewise
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
)

// GatewayURL is where the gateway of `make gateway-install` (hack/local-cluster/gateway.sh) takes
// traffic: the Service traefik/traefik, port 80, a ClusterIP reached from the node's network
// namespace. Traefik serves Ingresses of class traefik and the Gateway traefik/web there.
const GatewayURL = "http://10.96.0.80"

// gatewayNamespace holds Traefik, its Service and the Gateway web.
const gatewayNamespace = "traefik"

// GatewayRoute is a WebApp route for hostnames on that Gateway, through its listener http, which
// takes routes from every namespace.
func GatewayRoute(hostnames ...string) *webappv1.Route {
	return &webappv1.Route{Hostnames: hostnames,
		ParentRefs: []webappv1.RouteParentRef{{Name: "web", Namespace: gatewayNamespace, SectionName: "http"}}}
}

// ExpectGateway fails unless the gateway is installed.
func ExpectGateway(ctx context.Context, c client.Client) {
	GinkgoHelper()
	Expect(c.Get(ctx, client.ObjectKey{Namespace: gatewayNamespace, Name: "traefik"}, &corev1.Service{})).
		To(Succeed(), "the gateway is not installed: make gateway-install")
}

// ExpectNoFailedRequests stops the probers, keyed by the path each calls through ("the Service"),
// reports each one's counts for what (a report entry and a step), and requires more than minOK
// answers on each path and no failed request on any. All are stopped and reported before any check,
// so that a failure shows every path's counts.
func ExpectNoFailedRequests(what string, probers map[string]*Prober, minOK int) {
	GinkgoHelper()
	paths := slices.Sorted(maps.Keys(probers))
	answered, failed := map[string]int{}, map[string]int{}
	for _, path := range paths {
		var first []string
		answered[path], failed[path], first = probers[path].Stop()
		counts := fmt.Sprintf("%d answered, %d failed %v", answered[path], failed[path], first)
		AddReportEntry(fmt.Sprintf("%s, through %s", what, path), counts)
		By(fmt.Sprintf("%s, through %s: %s", what, path, counts))
	}
	none := map[string]int{}
	for _, path := range paths {
		none[path] = 0
	}
	Expect(failed).To(Equal(none), "failed requests by path")
	for _, path := range paths {
		Expect(answered[path]).To(BeNumerically(">", minOK), "through %s: too few requests to say anything", path)
	}
}
