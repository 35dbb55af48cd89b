package e2e

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/status"
	"github.com/webapp-operator/webapp-operator/test/framework"
)

// spec.rollout.autoRollback on a real node: an image that cannot be pulled keeps the new pod
// failing; after failureSeconds the operator puts the Deployment back on the last template that was
// Ready, while the old pods serve every request.
var _ = Describe("A failed rollout, rolled back automatically", Ordered, func() {
	var ns string
	BeforeAll(func() {
		ns = "e2e-rollback-" + rand.String(5)
		Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		DeferCleanup(func() { _ = k8s.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}) })
	})

	It("goes back to the last Ready image with the app answering throughout, and says so", func() {
		Expect(k8s.Create(ctx, &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shop"},
			Spec: webappv1.WebAppSpec{Image: demoImage + ":v1", Replicas: ptr.To[int32](2),
				HealthCheck: &webappv1.HealthCheck{Path: "/healthz"},
				Rollout:     &webappv1.Rollout{AutoRollback: true, FailureSeconds: ptr.To[int32](10)}}})).To(Succeed())
		readyWith(ns, "shop", demoImage+":v1", 2)
		prober, err := framework.StartProber(nodeHTTP, shopURL(ns)+"/", 20*time.Millisecond)
		Expect(err).NotTo(HaveOccurred())

		By("an image that does not exist: the new pod cannot start")
		updateWebApp(ns, "shop", func(wa *webappv1.WebApp) { wa.Spec.Image = demoImage + ":does-not-exist" })

		By("10 s of failing pods later: back on v1, Ready on it, Stalled until the spec changes")
		Eventually(func(g Gomega) {
			wa := &webappv1.WebApp{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop"}, wa)).To(Succeed())
			ready := meta.FindStatusCondition(wa.Status.Conditions, webappv1.ConditionReady)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Reason).To(Equal(status.ReasonRolledBack), "%s: %s", ready.Reason, ready.Message)
			g.Expect(ready.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(meta.IsStatusConditionTrue(wa.Status.Conditions, webappv1.ConditionStalled)).To(BeTrue())
			g.Expect(wa.Status.RolledBack).NotTo(BeNil())
			g.Expect(wa.Status.RolledBack.Image).To(Equal(demoImage + ":does-not-exist"))
			g.Expect(wa.Status.RolledBack.Reason).To(Equal(status.ReasonPodFailing))
			g.Expect(wa.Status.RolledBack.To.Image).To(Equal(demoImage + ":v1"))
			g.Expect(wa.Spec.Image).To(Equal(demoImage+":does-not-exist"), "the spec is the user's")
			By(fmt.Sprintf("Ready: %s", ready.Message))
		}, 3*time.Minute, time.Second).Should(Succeed())

		By("the broken pod is gone, both pods run v1, and no request failed")
		Eventually(func(g Gomega) {
			pods := &corev1.PodList{}
			g.Expect(k8s.List(ctx, pods, client.InNamespace(ns),
				client.MatchingLabels{"app.kubernetes.io/instance": "shop"})).To(Succeed())
			g.Expect(pods.Items).To(HaveLen(2))
			for _, p := range pods.Items {
				g.Expect(p.Spec.Containers[0].Image).To(Equal(demoImage + ":v1"))
			}
		}, 2*time.Minute).Should(Succeed())
		ok, failed, firstFails := prober.Stop()
		By(fmt.Sprintf("%d requests answered, %d failed", ok, failed))
		Expect(failed).To(BeZero(), "first failures: %v", firstFails)
		Expect(ok).To(BeNumerically(">", 100))
		Eventually(func(g Gomega) {
			events := &eventsv1.EventList{}
			g.Expect(k8s.List(ctx, events, client.InNamespace(ns))).To(Succeed())
			var warnings []string
			for _, e := range events.Items {
				if e.Regarding.Kind == "WebApp" && e.Type == corev1.EventTypeWarning {
					warnings = append(warnings, e.Reason)
				}
			}
			g.Expect(warnings).To(ContainElement(status.ReasonRolledBack))
		}).Should(Succeed())

		By("a new spec ends the rollback and rolls out")
		updateWebApp(ns, "shop", func(wa *webappv1.WebApp) { wa.Spec.Image = demoImage + ":v2" })
		readyWith(ns, "shop", demoImage+":v2", 2)
		wa := &webappv1.WebApp{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop"}, wa)).To(Succeed())
		Expect(wa.Status.RolledBack).To(BeNil())
		Expect(meta.FindStatusCondition(wa.Status.Conditions, webappv1.ConditionReady).Reason).To(Equal(status.ReasonReady))
	})
})
