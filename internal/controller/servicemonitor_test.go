package controller_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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

	DescribeTable("admission resolves spec.metrics.port against the container's ports",
		func(mutate func(*webappv1.WebApp), wantMessage string) {
			app := newWebApp(ns, "m")
			app.Spec.Ports = []webappv1.ContainerPort{{Name: "metrics", ContainerPort: 9090},
				{Name: "admin", ContainerPort: 9091, ServicePort: ptr.To[int32](8091)}}
			app.Spec.Metrics = &webappv1.Metrics{}
			mutate(app)
			err := k8sClient.Create(ctx, app)
			if wantMessage == "" {
				Expect(err).NotTo(HaveOccurred())
				Expect(k8sClient.Delete(ctx, app)).To(Succeed())
				return
			}
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "expected Invalid, got %v", err)
			Expect(err.Error()).To(ContainSubstring(wantMessage))
		},
		Entry("the default, the main port", func(a *webappv1.WebApp) {}, ""),
		Entry("the main port by number", func(a *webappv1.WebApp) { a.Spec.Metrics.Port = ptr.To(intstr.FromInt32(8080)) }, ""),
		Entry("a port of spec.ports by name", func(a *webappv1.WebApp) {
			a.Spec.Metrics.Port = ptr.To(intstr.FromString("admin"))
		}, ""),
		Entry("a port of spec.ports by number", func(a *webappv1.WebApp) {
			a.Spec.Metrics.Port = ptr.To(intstr.FromInt32(9090))
		}, ""),
		Entry("a name no port has", func(a *webappv1.WebApp) { a.Spec.Metrics.Port = ptr.To(intstr.FromString("prom")) },
			"metrics.port is http, spec.port, or the name or containerPort of one of spec.ports"),
		Entry("a number no port has", func(a *webappv1.WebApp) { a.Spec.Metrics.Port = ptr.To(intstr.FromInt32(9100)) },
			"metrics.port is http, spec.port, or the name or containerPort of one of spec.ports"),
		Entry("a number out of range", func(a *webappv1.WebApp) { a.Spec.Metrics.Port = ptr.To(intstr.FromInt32(70000)) },
			"a port number is between 1 and 65535"),
		Entry("a UDP port", func(a *webappv1.WebApp) {
			a.Spec.Ports[0].Protocol = "UDP"
			a.Spec.Metrics.Port = ptr.To(intstr.FromString("metrics"))
		}, "the metrics port is TCP"),
		Entry("a container port the Service already uses", func(a *webappv1.WebApp) {
			a.Spec.Service.Port = 9090
			a.Spec.Metrics.Port = ptr.To(intstr.FromString("metrics"))
		}, "which must then differ from service.port and from every servicePort"),
		Entry("a container port another port's servicePort uses", func(a *webappv1.WebApp) {
			a.Spec.Ports[1].ServicePort = ptr.To[int32](9090)
			a.Spec.Metrics.Port = ptr.To(intstr.FromString("metrics"))
		}, "which must then differ from service.port and from every servicePort"),
		Entry("a path that is not absolute", func(a *webappv1.WebApp) { a.Spec.Metrics.Path = "metrics" }, "spec.metrics.path"),
		Entry("an interval of zero", func(a *webappv1.WebApp) { a.Spec.Metrics.Interval = "0s" },
			"an interval is a Prometheus duration above zero"),
		Entry("an interval that is no duration", func(a *webappv1.WebApp) { a.Spec.Metrics.Interval = "1 minute" },
			"spec.metrics.interval"),
	)
})
