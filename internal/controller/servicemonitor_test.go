package controller_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

func newServiceMonitor() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(resources.ServiceMonitorGVK)
	return u
}

var _ = Describe("The ServiceMonitor", func() {
	var ns string
	BeforeEach(func() { ns = newNamespace() })

	monitor := func(name string) func(g Gomega) *unstructured.Unstructured { return get(ns, name, newServiceMonitor()) }
	endpoints := func(g Gomega, u *unstructured.Unstructured) []any {
		v, found, err := unstructured.NestedSlice(u.Object, "spec", "endpoints")
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(found).To(BeTrue(), "spec.endpoints")
		return v
	}
	servicePorts := func(name string) func(g Gomega) []string {
		return func(g Gomega) []string {
			ports := get(ns, name, &corev1.Service{})(g).Spec.Ports
			out := make([]string, 0, len(ports))
			for _, p := range ports {
				out = append(out, fmt.Sprintf("%s/%s/%d", p.Name, p.TargetPort.String(), p.Port))
			}
			return out
		}
	}

	It("has the app's metrics scraped from a port the Service then exposes, corrects drift, and goes when switched off", func() {
		app := newWebApp(ns, "scraped")
		app.Spec.Ports = []webappv1.ContainerPort{{Name: "metrics", ContainerPort: 9090}}
		app.Spec.Metrics = &webappv1.Metrics{Port: ptr.To(intstr.FromString("metrics")), Interval: "30s"}
		createReady(app)
		m := monitor("scraped")(Default)
		Expect(metav1.IsControlledBy(m, fetch(ns, "scraped"))).To(BeTrue())
		Expect(endpoints(Default, m)).To(Equal([]any{map[string]any{"port": "metrics", "path": "/metrics", "interval": "30s"}}))
		svc := get(ns, "scraped", &corev1.Service{})(Default)
		sel, _, _ := unstructured.NestedStringMap(m.Object, "spec", "selector", "matchLabels")
		Expect(sel).To(Equal(svc.Labels), "the ServiceMonitor selects the WebApp's Service by the labels it carries")
		Expect(servicePorts("scraped")(Default)).To(Equal([]string{"http/http/80", "metrics/metrics/9090"}),
			"the Service exposes the metrics port, by name, so that the ServiceMonitor's endpoint can select it")

		By("a pass over the unchanged WebApp writes nothing")
		writesBefore := settledWritesIn(ns)
		passesBefore := reconcileCount()
		Eventually(func(g Gomega) {
			u := monitor("scraped")(g)
			labels := u.GetLabels()
			labels["touched"] = "yes"
			u.SetLabels(labels)
			g.Expect(k8sClient.Update(ctx, u)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(reconcileCount, timeout, interval).Should(BeNumerically(">", passesBefore))
		Consistently(func() []string { return requests.WritesIn(ns)[writesBefore:] }, 2*time.Second, 100*time.Millisecond).
			Should(BeEmpty(), "a pass with nothing to change must not write")

		By("someone points it at another port and adds a label of their own: the port is put back, the label stays")
		Eventually(func(g Gomega) {
			u := monitor("scraped")(g)
			eps := endpoints(g, u)
			eps[0].(map[string]any)["port"] = "http"
			g.Expect(unstructured.SetNestedSlice(u.Object, eps, "spec", "endpoints")).To(Succeed())
			labels := u.GetLabels()
			labels["team.example.com/owner"] = "alice"
			u.SetLabels(labels)
			g.Expect(k8sClient.Update(ctx, u)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) {
			u := monitor("scraped")(g)
			g.Expect(endpoints(g, u)[0]).To(HaveKeyWithValue("port", "metrics"))
			g.Expect(u.GetLabels()).To(HaveKeyWithValue("team.example.com/owner", "alice"))
		}, timeout, interval).Should(Succeed())

		By("scraped from the main port instead: the Service no longer exposes the metrics port")
		updateWebApp(ns, "scraped", func(a *webappv1.WebApp) { a.Spec.Metrics.Port = ptr.To(intstr.FromString("http")) })
		Eventually(func(g Gomega) any { return endpoints(g, monitor("scraped")(g))[0] }, timeout, interval).
			Should(HaveKeyWithValue("port", "http"))
		Eventually(servicePorts("scraped"), timeout, interval).Should(Equal([]string{"http/http/80"}))

		By("switched off: the ServiceMonitor goes, and the WebApp stays Ready")
		updateWebApp(ns, "scraped", func(a *webappv1.WebApp) { a.Spec.Metrics = nil })
		Eventually(absent(ns, "scraped", newServiceMonitor()), timeout, interval).Should(BeTrue())
		Eventually(condition(ns, "scraped", webappv1.ConditionReady), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonReady))
	})

	It("never touches a same-name ServiceMonitor it does not control, on or off", func() {
		foreign := newServiceMonitor()
		foreign.SetNamespace(ns)
		foreign.SetName("taken")
		foreign.SetLabels(map[string]string{resources.LabelManagedBy: resources.ManagedBy})
		foreign.Object["spec"] = map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": "theirs"}},
			"endpoints": []any{map[string]any{"port": "web"}}}
		Expect(k8sClient.Create(ctx, foreign)).To(Succeed())
		createReady(newWebApp(ns, "taken"))
		Consistently(func(g Gomega) string { return monitor("taken")(g).GetResourceVersion() }, 2*time.Second, interval).
			Should(Equal(foreign.GetResourceVersion()), "a WebApp without metrics deleted or changed someone's ServiceMonitor")

		updateWebApp(ns, "taken", func(a *webappv1.WebApp) { a.Spec.Metrics = &webappv1.Metrics{} })
		Eventually(condition(ns, "taken", webappv1.ConditionStalled), timeout, interval).
			Should(And(haveStatusReason(metav1.ConditionTrue, status.ReasonNameConflict),
				HaveField("Message", ContainSubstring(`a ServiceMonitor named "taken" already exists`))))
		Expect(monitor("taken")(Default).GetResourceVersion()).To(Equal(foreign.GetResourceVersion()),
			"the foreign ServiceMonitor was modified")

		By("switched off again: the foreign ServiceMonitor stays, and the WebApp is Ready")
		updateWebApp(ns, "taken", func(a *webappv1.WebApp) { a.Spec.Metrics = nil })
		Eventually(condition(ns, "taken", webappv1.ConditionReady), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonReady))
		Expect(monitor("taken")(Default).GetResourceVersion()).To(Equal(foreign.GetResourceVersion()))
	})
})
