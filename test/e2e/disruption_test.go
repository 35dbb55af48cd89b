package e2e

import (
	"fmt"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/test/framework"
)

// A WebApp with three replicas gets a PodDisruptionBudget that lets one pod go at a time: of two
// evictions sent together (a node drain), the API server grants one and refuses the other, and the
// app keeps answering throughout.
var _ = Describe("The PodDisruptionBudget of a WebApp with three replicas", Ordered, func() {
	var ns string
	const name = "shop"
	shopPods := client.MatchingLabels{"app.kubernetes.io/instance": name}

	BeforeAll(func() {
		ns = "e2e-disruption-" + rand.String(5)
		Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		DeferCleanup(func() {
			_ = k8s.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		})
		Eventually(func() error {
			return k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "default"}, &corev1.ServiceAccount{})
		}).Should(Succeed())
	})

	It("lets a drain evict one pod at a time, without a failed request", func() {
		Expect(k8s.Create(ctx, &webappv1.WebApp{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: webappv1.WebAppSpec{
				Image:    demoImage + ":v1",
				Replicas: ptr.To[int32](3),
				Args:     []string{"-version=v1"},
				// A replacement pod is not Ready for 8 s, so the budget cannot recover between the two
				// evictions. (The eviction API retries a conflicting budget update for up to 10 s and
				// re-reads the budget: a replacement Ready by then rightly lets the second one through.)
				Probes: &webappv1.Probes{Readiness: &webappv1.Probe{
					HTTPGet: &webappv1.HTTPGetAction{Path: "/ready"}, PeriodSeconds: ptr.To[int32](1),
					InitialDelaySeconds: ptr.To[int32](8)}},
				// the endpoints drop an evicted pod a moment after it starts stopping: the pause covers it
				Lifecycle: &webappv1.Lifecycle{PreStop: &webappv1.Handler{SleepSeconds: ptr.To[int64](3)}},
			},
		})).To(Succeed())
		ready := func() {
			GinkgoHelper()
			Eventually(func(g Gomega) {
				wa := &webappv1.WebApp{}
				g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, wa)).To(Succeed())
				c := meta.FindStatusCondition(wa.Status.Conditions, webappv1.ConditionReady)
				g.Expect(c).NotTo(BeNil())
				g.Expect(c.ObservedGeneration).To(Equal(wa.Generation))
				g.Expect(c.Status).To(Equal(metav1.ConditionTrue), "%s: %s", c.Reason, c.Message)
				g.Expect(wa.Status.AvailableReplicas).To(Equal(int32(3)))
			}).Should(Succeed())
		}
		ready()

		By("the disruption controller allows one disruption")
		Eventually(func(g Gomega) int32 {
			pdb := &policyv1.PodDisruptionBudget{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pdb)).To(Succeed())
			g.Expect(pdb.Status.ObservedGeneration).To(Equal(pdb.Generation))
			return pdb.Status.DisruptionsAllowed
		}).Should(Equal(int32(1)))

		prober, err := framework.StartProber(nodeHTTP, shopURL(ns)+"/", 20*time.Millisecond)
		Expect(err).NotTo(HaveOccurred())

		By("two evictions at once, as a drain of two nodes would send them")
		pods := &corev1.PodList{}
		Expect(k8s.List(ctx, pods, client.InNamespace(ns), shopPods)).To(Succeed())
		Expect(pods.Items).To(HaveLen(3))
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Add(1)
			go func(pod *corev1.Pod) {
				defer wg.Done()
				errs[i] = k8s.SubResource("eviction").Create(ctx, pod, &policyv1.Eviction{
					ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: pod.Name}})
			}(&pods.Items[i])
		}
		wg.Wait()
		granted, refused := 0, 0
		for _, err := range errs {
			switch {
			case err == nil:
				granted++
			case apierrors.IsTooManyRequests(err):
				refused++
			default:
				Fail(fmt.Sprintf("an eviction failed for another reason than the budget: %v", err))
			}
		}
		Expect([]int{granted, refused}).To(Equal([]int{1, 1}), "evictions granted and refused: %v", errs)

		By("the evicted pod is replaced, and the app never stopped answering")
		ready()
		Eventually(func(g Gomega) {
			g.Expect(k8s.List(ctx, pods, client.InNamespace(ns), shopPods)).To(Succeed())
			g.Expect(pods.Items).To(HaveLen(3), "the evicted pod's preStop pause is over")
		}).Should(Succeed())
		ok, failed, firstFails := prober.Stop()
		By(fmt.Sprintf("%d requests answered, %d failed", ok, failed))
		Expect(failed).To(BeZero(), "first failures: %v", firstFails)
		Expect(ok).To(BeNumerically(">", 100))
	})
})
