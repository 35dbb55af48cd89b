package e2e

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/test/framework"
)

// A web app as a team would run it, in a namespace that enforces the restricted Pod Security level:
// configuration from a ConfigMap volume, a token from a Secret, probes of its own, a preStop pause
// so that rollouts drop no request.
var _ = Describe("A real web app in a restricted namespace", Ordered, func() {
	var ns string
	const name = "shop"
	shopPods := client.MatchingLabels{"app.kubernetes.io/instance": name}

	BeforeAll(func() {
		ns = "e2e-restricted-" + rand.String(5)
		Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{
			"pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/warn": "restricted",
		}}})).To(Succeed())
		DeferCleanup(func() {
			_ = k8s.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		})
		Expect(k8s.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shop-config"},
			Data: map[string]string{"greeting.txt": "hello from a ConfigMap"}})).To(Succeed())
		Expect(k8s.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shop-token"},
			StringData: map[string]string{"token": "s3cret"}})).To(Succeed())
	})

	shop := func(version string) *webappv1.WebApp {
		return &webappv1.WebApp{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: webappv1.WebAppSpec{
				Image:    demoImage + ":v1",
				Replicas: ptr.To[int32](2),
				Args:     []string{"-version=" + version, "-files=/etc/shop", "-expose-env=TOKEN"},
				Env: []webappv1.EnvVar{{Name: "TOKEN", ValueFrom: &webappv1.EnvVarSource{
					SecretKeyRef: &webappv1.KeySelector{Name: "shop-token", Key: "token"}}}},
				Volumes: []webappv1.Volume{{Name: "config", MountPath: "/etc/shop",
					ConfigMap: &webappv1.ConfigMapVolume{Name: "shop-config"}}},
				Probes: &webappv1.Probes{
					Readiness: &webappv1.Probe{HTTPGet: &webappv1.HTTPGetAction{Path: "/ready"}, PeriodSeconds: ptr.To[int32](1)},
					Liveness:  &webappv1.Probe{HTTPGet: &webappv1.HTTPGetAction{Path: "/healthz"}, PeriodSeconds: ptr.To[int32](5)},
					Startup:   &webappv1.Probe{TCPSocket: &webappv1.TCPSocketAction{}, PeriodSeconds: ptr.To[int32](1)},
				},
				// Endpoints and kube-proxy take a moment to stop sending a stopping pod traffic: the
				// pause covers it.
				Lifecycle: &webappv1.Lifecycle{PreStop: &webappv1.Handler{SleepSeconds: ptr.To[int64](3)}},
				Strategy:  &webappv1.RolloutStrategy{MaxUnavailable: ptr.To(intstr.FromInt32(0))},
				Security:  &webappv1.Security{ReadOnlyRootFilesystem: ptr.To(true)},
			},
		}
	}
	ready := func(version string) {
		GinkgoHelper()
		Eventually(func(g Gomega) {
			wa := &webappv1.WebApp{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, wa)).To(Succeed())
			c := meta.FindStatusCondition(wa.Status.Conditions, webappv1.ConditionReady)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.ObservedGeneration).To(Equal(wa.Generation))
			g.Expect(c.Status).To(Equal(metav1.ConditionTrue), "%s: %s", c.Reason, c.Message)
			code, body, err := get(shopURL(ns) + "/")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(code).To(Equal(200))
			g.Expect(body).To(Equal("hello from " + version))
		}).Should(Succeed())
	}

	It("runs, Ready, and serves its ConfigMap's file and its Secret's value", func() {
		Expect(k8s.Create(ctx, shop("v1"))).To(Succeed())
		ready("v1")
		code, body, err := get(shopURL(ns) + "/files/greeting.txt")
		Expect(err).NotTo(HaveOccurred())
		Expect(code).To(Equal(200))
		Expect(body).To(Equal("hello from a ConfigMap"))
		code, body, err = get(shopURL(ns) + "/env/TOKEN")
		Expect(err).NotTo(HaveOccurred())
		Expect(code).To(Equal(200))
		Expect(body).To(Equal("s3cret"))

		pods := &corev1.PodList{}
		Expect(k8s.List(ctx, pods, client.InNamespace(ns), shopPods)).To(Succeed())
		for _, p := range pods.Items {
			Expect(p.Spec.AutomountServiceAccountToken).To(Equal(ptr.To(false)))
			Expect(p.Spec.SecurityContext.RunAsNonRoot).To(Equal(ptr.To(true)))
			Expect(p.Spec.SecurityContext.RunAsUser).To(BeNil(), "the image's USER decides the UID")
		}
	})

	It("rolls out a new version without a failed request", func() {
		prober, err := framework.StartProber(nodeHTTP, shopURL(ns)+"/", 20*time.Millisecond)
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() error {
			wa := &webappv1.WebApp{}
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, wa); err != nil {
				return err
			}
			wa.Spec.Args = shop("v2").Spec.Args
			return k8s.Update(ctx, wa)
		}).Should(Succeed())
		ready("v2")
		// the old pods' preStop pauses end after the rollout is reported: wait them out
		Eventually(func(g Gomega) {
			pods := &corev1.PodList{}
			g.Expect(k8s.List(ctx, pods, client.InNamespace(ns), shopPods)).To(Succeed())
			g.Expect(pods.Items).To(HaveLen(2))
		}).Should(Succeed())
		ok, failed, firstFails := prober.Stop()
		By(fmt.Sprintf("%d requests answered, %d failed", ok, failed))
		Expect(failed).To(BeZero(), "first failures: %v", firstFails)
		Expect(ok).To(BeNumerically(">", 100))
	})
})

// rolloutOnConfigChange: the pods restart when the data they read changes, as they would for a
// new image, and a prober sees no failed request. A ConfigMap's file would reach running pods on its
// own, a minute or so later; a Secret's value in an environment variable never would.
var _ = Describe("A real web app whose configuration changes", Ordered, func() {
	var ns string
	shopPods := client.MatchingLabels{"app.kubernetes.io/instance": "shop"}

	BeforeAll(func() {
		ns = "e2e-config-" + rand.String(5)
		Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		DeferCleanup(func() { _ = k8s.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}) })
		Expect(k8s.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shop-config"},
			Data: map[string]string{"greeting.txt": "hello from a ConfigMap"}})).To(Succeed())
		Expect(k8s.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shop-token"},
			StringData: map[string]string{"token": "s3cret"}})).To(Succeed())
		Expect(k8s.Create(ctx, &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shop"},
			Spec: webappv1.WebAppSpec{
				Image: demoImage + ":v1", Replicas: ptr.To[int32](2),
				Args: []string{"-files=/etc/shop", "-expose-env=TOKEN"},
				Env: []webappv1.EnvVar{{Name: "TOKEN", ValueFrom: &webappv1.EnvVarSource{
					SecretKeyRef: &webappv1.KeySelector{Name: "shop-token", Key: "token"}}}},
				Volumes: []webappv1.Volume{{Name: "config", MountPath: "/etc/shop",
					ConfigMap: &webappv1.ConfigMapVolume{Name: "shop-config"}}},
				Probes: &webappv1.Probes{Readiness: &webappv1.Probe{HTTPGet: &webappv1.HTTPGetAction{Path: "/ready"},
					PeriodSeconds: ptr.To[int32](1)}},
				Lifecycle: &webappv1.Lifecycle{PreStop: &webappv1.Handler{SleepSeconds: ptr.To[int64](3)}},
				Strategy:  &webappv1.RolloutStrategy{MaxUnavailable: ptr.To(intstr.FromInt32(0))},
			}})).To(Succeed())
		readyWith(ns, "shop", demoImage+":v1", 2)
	})

	// rollsTo waits until the WebApp is Ready on a config revision other than old, with only pods
	// that did not run before and that answer path with want; it returns the new revision.
	rollsTo := func(old string, before []string, path, want string) string {
		GinkgoHelper()
		var rev string
		Eventually(func(g Gomega) {
			wa := &webappv1.WebApp{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop"}, wa)).To(Succeed())
			g.Expect(wa.Status.ConfigRevision).NotTo(Equal(old))
			g.Expect(meta.IsStatusConditionTrue(wa.Status.Conditions, webappv1.ConditionReady)).To(BeTrue())
			pods := &corev1.PodList{}
			g.Expect(k8s.List(ctx, pods, client.InNamespace(ns), shopPods)).To(Succeed())
			g.Expect(pods.Items).To(HaveLen(2))
			for _, p := range pods.Items {
				g.Expect(before).NotTo(ContainElement(p.Name), "every pod is a new one")
			}
			code, body, err := get(shopURL(ns) + path)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(code).To(Equal(200))
			g.Expect(body).To(Equal(want))
			rev = wa.Status.ConfigRevision
		}, 2*time.Minute).Should(Succeed())
		return rev
	}
	podNames := func() []string {
		GinkgoHelper()
		pods := &corev1.PodList{}
		Expect(k8s.List(ctx, pods, client.InNamespace(ns), shopPods)).To(Succeed())
		names := make([]string, 0, len(pods.Items))
		for _, p := range pods.Items {
			names = append(names, p.Name)
		}
		return names
	}

	It("rolls the pods when the ConfigMap or the Secret they read changes, without a failed request", func() {
		wa := &webappv1.WebApp{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop"}, wa)).To(Succeed())
		rev := wa.Status.ConfigRevision
		Expect(rev).NotTo(BeEmpty())
		prober, err := framework.StartProber(nodeHTTP, shopURL(ns)+"/", 20*time.Millisecond)
		Expect(err).NotTo(HaveOccurred())

		By("the ConfigMap edited: new pods, which serve the new file")
		before := podNames()
		cm := &corev1.ConfigMap{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop-config"}, cm)).To(Succeed())
		cm.Data["greeting.txt"] = "hello from an edited ConfigMap"
		Expect(k8s.Update(ctx, cm)).To(Succeed())
		rev = rollsTo(rev, before, "/files/greeting.txt", "hello from an edited ConfigMap")

		By("the Secret edited: new pods, whose environment has the new value")
		before = podNames()
		secret := &corev1.Secret{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop-token"}, secret)).To(Succeed())
		secret.Data["token"] = []byte("n3w-s3cret")
		Expect(k8s.Update(ctx, secret)).To(Succeed())
		rollsTo(rev, before, "/env/TOKEN", "n3w-s3cret")

		ok, failed, firstFails := prober.Stop()
		By(fmt.Sprintf("%d requests answered, %d failed", ok, failed))
		Expect(failed).To(BeZero(), "first failures: %v", firstFails)
		Expect(ok).To(BeNumerically(">", 100))
	})
})

// shopURL is the address of the shop WebApp's Service in ns, from the node.
func shopURL(ns string) string {
	GinkgoHelper()
	svc := &corev1.Service{}
	Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop"}, svc)).To(Succeed())
	return fmt.Sprintf("http://%s:%d", svc.Spec.ClusterIP, svc.Spec.Ports[0].Port)
}
