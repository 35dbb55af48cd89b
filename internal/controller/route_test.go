package controller_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

func newRoute() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(resources.HTTPRouteGVK)
	return u
}

// playGatewayController writes what a Gateway's controller writes once it has attached the route:
// Accepted and ResolvedRefs for the route's current generation, for each of the parents given as
// {name, namespace, sectionName} (empty strings are left out, as the WebApp's spec leaves them).
func playGatewayController(ns, name string, parents ...[3]string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		route := get(ns, name, newRoute())(g)
		entries := make([]any, 0, len(parents))
		for _, p := range parents {
			ref := map[string]any{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": p[0]}
			if p[1] != "" {
				ref["namespace"] = p[1]
			}
			if p[2] != "" {
				ref["sectionName"] = p[2]
			}
			conds := make([]any, 0, 2)
			for _, t := range []string{"Accepted", "ResolvedRefs"} {
				conds = append(conds, map[string]any{"type": t, "status": "True", "reason": t, "message": "",
					"observedGeneration": route.GetGeneration(), "lastTransitionTime": metav1.Now().Format(time.RFC3339)})
			}
			entries = append(entries, map[string]any{"parentRef": ref, "controllerName": "example.com/gateway",
				"conditions": conds})
		}
		route.Object["status"] = map[string]any{"parents": entries}
		g.Expect(k8sClient.Status().Update(ctx, route)).To(Succeed())
	}, timeout, interval).Should(Succeed())
}

var _ = Describe("The HTTPRoute", func() {
	var ns string
	BeforeEach(func() { ns = newNamespace() })

	route := func(name string) func(g Gomega) *unstructured.Unstructured { return get(ns, name, newRoute()) }
	url := func(name string) func() string { return func() string { return fetch(ns, name).Status.URL } }
	spec := func(g Gomega, u *unstructured.Unstructured, path ...string) any {
		v, found, err := unstructured.NestedFieldNoCopy(u.Object, append([]string{"spec"}, path...)...)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(found).To(BeTrue(), "spec.%v", path)
		return v
	}

	It("exposes the WebApp, which is Ready with its URL once every Gateway has accepted the route", func() {
		app := newWebApp(ns, "front")
		app.Spec.Route = &webappv1.Route{Hostnames: []string{"shop.example.com"}, Paths: []string{"/shop"},
			ParentRefs: []webappv1.RouteParentRef{{Name: "public"}, {Name: "traefik", Namespace: "traefik", SectionName: "web"}}}
		Expect(k8sClient.Create(ctx, app)).To(Succeed())
		Eventually(route("front"), timeout, interval).ShouldNot(BeNil())
		r := route("front")(Default)
		Expect(metav1.IsControlledBy(r, fetch(ns, "front"))).To(BeTrue())
		Expect(spec(Default, r, "hostnames")).To(Equal([]any{"shop.example.com"}))
		Expect(spec(Default, r, "rules")).To(Equal([]any{map[string]any{
			"matches": []any{map[string]any{"path": map[string]any{"type": "PathPrefix", "value": "/shop"}}},
			"backendRefs": []any{map[string]any{"group": "", "kind": "Service", "name": "front", "port": int64(80),
				"weight": int64(1)}}}}))

		By("the pods are available, but no Gateway has accepted the route: not Ready, and it says which")
		playDeploymentController(ns, "front")
		Eventually(condition(ns, "front", webappv1.ConditionReady), timeout, interval).Should(And(
			haveStatusReason(metav1.ConditionFalse, status.ReasonRoutePending),
			HaveField("Message", ContainSubstring("not accepted by Gateway "+ns+"/public yet"))))
		Expect(url("front")()).To(Equal("http://front." + ns + ".svc:80"))

		By("one of the two Gateways accepts it: still pending, on the other")
		playGatewayController(ns, "front", [3]string{"public", "", ""})
		Eventually(condition(ns, "front", webappv1.ConditionReady), timeout, interval).Should(And(
			haveStatusReason(metav1.ConditionFalse, status.ReasonRoutePending),
			HaveField("Message", ContainSubstring("not accepted by Gateway traefik/traefik (listener web) yet"))))

		By("both accept it")
		playGatewayController(ns, "front", [3]string{"public", "", ""}, [3]string{"traefik", "traefik", "web"})
		Eventually(condition(ns, "front", webappv1.ConditionReady), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonReady))
		Expect(url("front")()).To(Equal("http://shop.example.com/shop"))

		By("someone points it at another Service and adds a label of their own")
		Eventually(func(g Gomega) {
			r := route("front")(g)
			rules := spec(g, r, "rules").([]any)
			rules[0].(map[string]any)["backendRefs"].([]any)[0].(map[string]any)["name"] = "elsewhere"
			r.SetLabels(map[string]string{"team.example.com/owner": "alice", resources.LabelManagedBy: resources.ManagedBy,
				resources.LabelName: resources.AppName, resources.LabelInstance: "front"})
			g.Expect(k8sClient.Update(ctx, r)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) {
			r := route("front")(g)
			backend := spec(g, r, "rules").([]any)[0].(map[string]any)["backendRefs"].([]any)[0].(map[string]any)
			g.Expect(backend["name"]).To(Equal("front"))
			g.Expect(r.GetLabels()).To(HaveKeyWithValue("team.example.com/owner", "alice"))
		}, timeout, interval).Should(Succeed())

		By("switched off: the HTTPRoute goes, and the URL is the in-cluster one again")
		updateWebApp(ns, "front", func(a *webappv1.WebApp) { a.Spec.Route = nil })
		Eventually(absent(ns, "front", newRoute()), timeout, interval).Should(BeTrue())
		Eventually(url("front"), timeout, interval).Should(Equal("http://front." + ns + ".svc:80"))
		Eventually(condition(ns, "front", webappv1.ConditionReady), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonReady))
	})

	It("never touches a same-name HTTPRoute it does not control, on or off", func() {
		foreign := newRoute()
		foreign.SetNamespace(ns)
		foreign.SetName("taken")
		foreign.SetLabels(map[string]string{resources.LabelManagedBy: resources.ManagedBy})
		foreign.Object["spec"] = map[string]any{"parentRefs": []any{map[string]any{"name": "theirs"}}}
		Expect(k8sClient.Create(ctx, foreign)).To(Succeed())
		createReady(newWebApp(ns, "taken"))
		Consistently(func(g Gomega) string { return route("taken")(g).GetResourceVersion() }, 2*time.Second, interval).
			Should(Equal(foreign.GetResourceVersion()), "a WebApp without a route deleted or changed someone's")

		updateWebApp(ns, "taken", func(a *webappv1.WebApp) {
			a.Spec.Route = &webappv1.Route{Hostnames: []string{"a.example.com"}, ParentRefs: []webappv1.RouteParentRef{{Name: "gw"}}}
		})
		Eventually(condition(ns, "taken", webappv1.ConditionStalled), timeout, interval).
			Should(And(haveStatusReason(metav1.ConditionTrue, status.ReasonNameConflict),
				HaveField("Message", ContainSubstring(`an HTTPRoute named "taken" already exists`))))
		Expect(route("taken")(Default).GetResourceVersion()).To(Equal(foreign.GetResourceVersion()),
			"the foreign HTTPRoute was modified")
	})
})
