package e2e

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/status"
	"github.com/webapp-operator/webapp-operator/test/framework"
)

// Through a real ingress controller: a WebApp with spec.ingress is Ready only once the controller has
// given its Ingress an address, reports its external URL, and answers by host name through it.
var _ = Describe("A WebApp exposed through a real ingress controller", Ordered, func() {
	var ns string
	BeforeAll(func() { ns = gatewayNamespace("e2e-gateway-") })

	It("waits for the Ingress's address, reports the URL, and serves by host name through Traefik", func() {
		const host = "shop.e2e.example"
		Expect(k8s.Create(ctx, &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shop"},
			Spec: webappv1.WebAppSpec{Image: demoImage + ":v1", Replicas: ptr.To[int32](2),
				Ingress: &webappv1.Ingress{ClassName: "traefik", Hosts: []string{host}}}})).To(Succeed())

		By("Ready once Traefik has written the address; status.url is the external URL")
		expectReadyAt(ns, "shop", status.ReasonAddressPending, "http://"+host+"/")

		By("HTTP to the gateway with that host name reaches the app; another host does not")
		expectServedThroughGateway("/", host)
		expectNotFoundThroughGateway("/", "other.e2e.example", "Traefik routes by host name")
	})
})

// Through a real Gateway API implementation: a WebApp with spec.route is Ready only once the Gateway
// traefik/web has accepted its HTTPRoute (Accepted and ResolvedRefs), reports its URL, and answers by
// host name through the Gateway's listener http (port 8000, behind the Service at framework.GatewayURL).
var _ = Describe("A WebApp exposed through a real Gateway", Ordered, func() {
	var ns string
	BeforeAll(func() { ns = gatewayNamespace("e2e-route-") })

	It("waits for the Gateway to accept the route, reports the URL, and serves by host name through it", func() {
		const host = "route.e2e.example"
		route := framework.GatewayRoute(host)
		route.Paths = []string{"/shop"}
		Expect(k8s.Create(ctx, &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shop"},
			Spec: webappv1.WebAppSpec{Image: demoImage + ":v1", Replicas: ptr.To[int32](2), Route: route}})).To(Succeed())

		By("Ready once Traefik has accepted the HTTPRoute; status.url is the route's URL")
		expectReadyAt(ns, "shop", status.ReasonRoutePending, "http://"+host+"/shop")

		By("HTTP to the gateway with that host name and path prefix reaches the app; another host or path does not")
		expectServedThroughGateway("/shop", host)
		expectNotFoundThroughGateway("/shop", "other-route.e2e.example", "the Gateway routes by host name")
		expectNotFoundThroughGateway("/elsewhere", host, "the Gateway routes by path prefix")
	})
})

// gatewayNamespace creates a namespace for one gateway spec, removed after it, and requires the
// gateway to be installed.
func gatewayNamespace(prefix string) string {
	GinkgoHelper()
	ns := prefix + rand.String(5)
	Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	DeferCleanup(func() { _ = k8s.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}) })
	framework.ExpectGateway(ctx, k8s)
	return ns
}

// expectReadyAt waits until the WebApp is Ready, past the reason pending (what it reports while the
// gateway has not taken its object yet), with status.url url.
func expectReadyAt(ns, name, pending, url string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		wa := &webappv1.WebApp{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, wa)).To(Succeed())
		c := meta.FindStatusCondition(wa.Status.Conditions, webappv1.ConditionReady)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Status).To(Equal(metav1.ConditionTrue), "%s: %s", c.Reason, c.Message)
		g.Expect(c.Reason).NotTo(Equal(pending))
		g.Expect(wa.Status.URL).To(Equal(url))
	}).Should(Succeed())
}

// expectServedThroughGateway waits until GET path on the gateway, for host, answers as the demo app v1.
func expectServedThroughGateway(path, host string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		code, body, err := framework.GetHost(nodeHTTP, framework.GatewayURL+path, host)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(code).To(Equal(http.StatusOK))
		g.Expect(body).To(ContainSubstring("hello from v1"))
	}).Should(Succeed())
}

// expectNotFoundThroughGateway requires GET path on the gateway, for host, to find no route.
func expectNotFoundThroughGateway(path, host, why string) {
	GinkgoHelper()
	code, _, err := framework.GetHost(nodeHTTP, framework.GatewayURL+path, host)
	Expect(err).NotTo(HaveOccurred())
	Expect(code).To(Equal(http.StatusNotFound), why)
}
