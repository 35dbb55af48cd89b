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

// shopURL is the address of the shop WebApp's Service in ns, from the node.
func shopURL(ns string) string {
	GinkgoHelper()
	svc := &corev1.Service{}
	Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop"}, svc)).To(Succeed())
	return fmt.Sprintf("http://%s:%d", svc.Spec.ClusterIP, svc.Spec.Ports[0].Port)
}
