package e2e

import (
	"fmt"
	"os/exec"
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
	"github.com/webapp-operator/webapp-operator/internal/status"
	"github.com/webapp-operator/webapp-operator/test/framework"
)

// A WebApp with three replicas gets a PodDisruptionBudget that lets one pod go at a time: of two
// evictions sent together (a node drain), the API server grants one and refuses the other, and the
// app keeps answering throughout, with no lifecycle settings of its own.
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

// Zero downtime by default: a WebApp with no lifecycle or strategy settings goes through every
// voluntary disruption without a failed request, through its Service and through the gateway. The
// disruptions run in sequence on one WebApp, each with its own pair of probers; the first also
// measures how long after a pod starts stopping each path still sends it requests. A disruption that
// fails a request does not stop the ones after it: each ends settled, and each count is reported.
// The operator's own pod killed during a rollout is the container after this one, on a WebApp of its
// own: it must run alone (Serial), and this one runs beside the suite's other containers.
var _ = Describe("Zero downtime by default", Ordered, ContinueOnFailure, func() {
	var shop *zeroDowntimeShop
	BeforeAll(func() { shop = newZeroDowntimeShop("e2e-zd-", "zd.e2e.example") })

	It("deletes a pod: both paths stop sending it requests within the default pause", func() {
		var victim string
		var deleted time.Time
		shop.disrupt("a pod deleted", 3, false, func() {
			p := shop.pods()[0]
			victim = p.Name
			Eventually(func() []time.Time { return []time.Time{shop.svc.LastServed(victim), shop.gw.LastServed(victim)} }).
				ShouldNot(ContainElement(BeZero()), "both paths send the pod requests before it stops")
			deleted = time.Now()
			Expect(k8s.Delete(ctx, &p)).To(Succeed())
		})
		paths := map[string]*framework.Prober{"the Service (kube-proxy)": shop.svc, "the gateway (Traefik)": shop.gw}
		for path, p := range paths {
			after := max(0, p.LastServed(victim).Sub(deleted)).Round(time.Millisecond)
			AddReportEntry("a stopping pod's last request through "+path, after.String())
			By(fmt.Sprintf("%s sent the stopping pod its last request %v after its deletion", path, after))
		}
	})

	It("changes the image", func() {
		wa := shop.webApp()
		shop.disrupt("an image change", 3, true, func() { updateObject(wa, func() { wa.Spec.Image = demoImage + ":v2" }) })
	})

	It("changes the ConfigMap the pods read through envFrom", func() {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: shop.ns, Name: "shop-config"}}
		shop.disrupt("a ConfigMap change", 3, true, func() { updateObject(cm, func() { cm.Data["GREETING"] = "bonjour" }) })
	})

	It("changes the Secret the pods read through envFrom", func() {
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: shop.ns, Name: "shop-secret"}}
		shop.disrupt("a Secret change", 3, true, func() {
			updateObject(secret, func() { secret.Data["TOKEN"] = []byte("two") })
		})
	})

	It("restarts the pods as kubectl rollout restart does", func() {
		shop.disrupt("kubectl rollout restart", 3, true, func() {
			out, err := exec.Command(kubectl, "-n", shop.ns, "rollout", "restart", "deployment/"+zdName).CombinedOutput()
			Expect(err).NotTo(HaveOccurred(), "%s", out)
		})
	})

	It("drains every pod through the eviction API, as kubectl drain does, within the budget", func() {
		refused := 0
		shop.disrupt("every pod evicted", 3, true, func() {
			var mu sync.Mutex
			var wg sync.WaitGroup
			for _, p := range shop.pods() {
				wg.Add(1)
				go func() {
					defer GinkgoRecover()
					defer wg.Done()
					// kubectl drain retries an eviction the budget refuses until it is granted
					Eventually(func() error {
						err := k8s.SubResource("eviction").Create(ctx, &p, &policyv1.Eviction{
							ObjectMeta: metav1.ObjectMeta{Namespace: shop.ns, Name: p.Name}})
						if apierrors.IsTooManyRequests(err) {
							mu.Lock()
							refused++
							mu.Unlock()
						}
						return err
					}).WithPolling(time.Second).Should(Succeed())
				}()
			}
			wg.Wait()
		})
		Expect(refused).To(BeNumerically(">", 0), "the budget held some evictions back")
	})

	It("scales down", func() {
		wa := shop.webApp()
		shop.disrupt("a scale-down from 3 to 1", 1, false, func() {
			updateObject(wa, func() { wa.Spec.Replicas = ptr.To[int32](1) })
		})
	})
})

// The same WebApp through a rollout during which the operator's pod is killed three times. Serial:
// killing the operator would stall the WebApps of the specs running beside it, and the suite's
// other Serial containers count the operator's pods.
var _ = Describe("Zero downtime by default, the operator killed", Ordered, Serial, func() {
	var shop *zeroDowntimeShop
	BeforeAll(func() { shop = newZeroDowntimeShop("e2e-zd-kill-", "zd-kill.e2e.example") })

	It("rolls out a new image while the operator pod is killed again and again", func() {
		wa := shop.webApp()
		shop.disrupt("an image change, the operator killed three times", 3, true, func() {
			updateObject(wa, func() { wa.Spec.Image = demoImage + ":v2" })
			for range 3 {
				Eventually(func(g Gomega) {
					list := &corev1.PodList{}
					g.Expect(k8s.List(ctx, list, client.InNamespace(operatorNamespace),
						client.MatchingLabels{"control-plane": "controller-manager"})).To(Succeed())
					killed := 0
					for i := range list.Items {
						if p := &list.Items[i]; p.DeletionTimestamp == nil && isReady(p) {
							// as kubectl delete does: the stopping operator hands its lease over
							g.Expect(k8s.Delete(ctx, p)).To(Succeed())
							killed++
						}
					}
					g.Expect(killed).To(BeNumerically(">", 0), "a Ready operator pod to kill")
				}).Should(Succeed())
			}
		})
	})
})

const zdName = "shop"

var zdPods = client.MatchingLabels{"app.kubernetes.io/instance": zdName}

// zeroDowntimeShop is the README's example as a Zero downtime container runs it: three replicas
// with no lifecycle or strategy settings, configuration read through envFrom, and a route on the
// gateway. svc and gw are the probers of the disruption running, on its Service and on its route.
type zeroDowntimeShop struct {
	ns, host string
	svc, gw  *framework.Prober
}

// newZeroDowntimeShop creates the shop in a namespace of its own, removed after the container, and
// waits until it is Ready through the gateway at host.
func newZeroDowntimeShop(prefix, host string) *zeroDowntimeShop {
	GinkgoHelper()
	s := &zeroDowntimeShop{ns: gatewayNamespace(prefix), host: host}
	Eventually(func() error {
		return k8s.Get(ctx, client.ObjectKey{Namespace: s.ns, Name: "default"}, &corev1.ServiceAccount{})
	}).Should(Succeed())
	Expect(k8s.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: "shop-config"},
		Data: map[string]string{"GREETING": "hello"}})).To(Succeed())
	Expect(k8s.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: "shop-secret"},
		StringData: map[string]string{"TOKEN": "one"}})).To(Succeed())
	Expect(k8s.Create(ctx, &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: zdName},
		Spec: webappv1.WebAppSpec{Image: demoImage + ":v1", Replicas: ptr.To[int32](3),
			HealthCheck: &webappv1.HealthCheck{Path: "/healthz"},
			EnvFrom: []webappv1.EnvFromSource{
				{ConfigMapRef: &webappv1.ObjectReference{Name: "shop-config"}},
				{SecretRef: &webappv1.ObjectReference{Name: "shop-secret"}}},
			Route: framework.GatewayRoute(host)}})).To(Succeed())
	expectReadyAt(s.ns, zdName, status.ReasonRoutePending, "http://"+host+"/")
	return s
}

// webApp is a WebApp to update the shop through.
func (s *zeroDowntimeShop) webApp() *webappv1.WebApp {
	return &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: zdName}}
}

// pods are the shop's pods, stopping ones included.
func (s *zeroDowntimeShop) pods() []corev1.Pod {
	GinkgoHelper()
	list := &corev1.PodList{}
	Expect(k8s.List(ctx, list, client.InNamespace(s.ns), zdPods)).To(Succeed())
	return list.Items
}

// disrupt runs act with a prober on the Service and one on the gateway route, waits until the
// WebApp is Ready with replicas pods, none stopping and, when replaced, none of those before, and
// requires no failed request on either path. act and the spec after it read the probers (svc, gw).
func (s *zeroDowntimeShop) disrupt(what string, replicas int32, replaced bool, act func()) {
	GinkgoHelper()
	By(what)
	var err error
	s.svc, err = framework.StartProber(nodeHTTP, shopURL(s.ns)+"/", 20*time.Millisecond)
	Expect(err).NotTo(HaveOccurred())
	s.gw, err = framework.StartProberHost(nodeHTTP, framework.GatewayURL+"/", s.host, 20*time.Millisecond)
	Expect(err).NotTo(HaveOccurred())
	before := map[string]bool{}
	for _, p := range s.pods() {
		before[p.Name] = true
	}
	act()
	Eventually(func(g Gomega) {
		wa := &webappv1.WebApp{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: s.ns, Name: zdName}, wa)).To(Succeed())
		c := meta.FindStatusCondition(wa.Status.Conditions, webappv1.ConditionReady)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.ObservedGeneration).To(Equal(wa.Generation))
		g.Expect(c.Status).To(Equal(metav1.ConditionTrue), "%s: %s", c.Reason, c.Message)
		g.Expect(wa.Status.AvailableReplicas).To(Equal(replicas))
		list := &corev1.PodList{}
		g.Expect(k8s.List(ctx, list, client.InNamespace(s.ns), zdPods)).To(Succeed())
		g.Expect(list.Items).To(HaveLen(int(replicas)), "stopping pods are gone")
		for _, p := range list.Items {
			g.Expect(p.DeletionTimestamp).To(BeNil(), "pod %s is stopping", p.Name)
			g.Expect(replaced && before[p.Name]).To(BeFalse(), "pod %s is replaced", p.Name)
		}
	}).Should(Succeed())
	framework.ExpectNoFailedRequests(what, map[string]*framework.Prober{"the Service": s.svc, "the gateway": s.gw}, 50)
}

// updateObject changes obj with change, on its latest version, retrying on conflicts.
func updateObject(obj client.Object, change func()) {
	GinkgoHelper()
	Eventually(func() error {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		change()
		return k8s.Update(ctx, obj)
	}).Should(Succeed())
}

func isReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
