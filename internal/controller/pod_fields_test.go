package controller_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/webapp-operator/webapp-operator/internal/testenv"
)

var _ = Describe("A WebApp that uses every pod field", func() {
	var ns string
	BeforeEach(func() { ns = newNamespace() })

	It("renders them, settles with zero writes, corrects drift in them, and removes what it no longer asks for", func() {
		createConfigMap(ns, "shop", map[string]string{"app.yaml": "greeting: hello"})
		createSecret(ns, "shop-tls", map[string]string{"tls.crt": "cert", "tls.key": "key"})
		createReady(testenv.FullWebApp(ns, "full"))
		d := getDeployment(ns, "full")(Default)
		pod := d.Spec.Template.Spec
		Expect(pod.Volumes).To(HaveLen(4))
		Expect(pod.InitContainers).To(HaveLen(2))
		Expect(pod.InitContainers[1].RestartPolicy).To(Equal(ptr.To(corev1.ContainerRestartPolicyAlways)))
		Expect(pod.Containers[0].StartupProbe.Exec.Command).To(Equal([]string{"/check"}))
		Expect(pod.Containers[0].Lifecycle.PreStop.Sleep.Seconds).To(Equal(int64(5)))
		Expect(pod.SecurityContext.RunAsUser).To(Equal(ptr.To[int64](1000)))
		Expect(d.Spec.Strategy.RollingUpdate.MaxUnavailable).To(Equal(ptr.To(intstr.FromString("0%"))))
		Expect(getService(ns, "full")(Default).Spec.Ports).To(HaveLen(2))

		By("a pass over it, with nothing to change, writes nothing")
		writesBefore := settledWritesIn(ns)
		passesBefore := reconcileCount()
		Eventually(func(g Gomega) {
			d := getDeployment(ns, "full")(g)
			d.Labels["touched"] = fmt.Sprint(time.Now().UnixNano())
			g.Expect(k8sClient.Update(ctx, d)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(reconcileCount, timeout, interval).Should(BeNumerically(">", passesBefore))
		Consistently(func() []string { return requests.WritesIn(ns)[writesBefore:] }, 2*time.Second, 100*time.Millisecond).
			Should(BeEmpty(), "a pass with nothing to change must not write")

		By("someone edits a volume's ConfigMap, the sidecar's image and security context, and the startup probe")
		Eventually(func(g Gomega) {
			d := getDeployment(ns, "full")(g)
			pod := &d.Spec.Template.Spec
			pod.Volumes[0].ConfigMap.Name = "other"
			pod.InitContainers[1].Image = "evil:latest"
			pod.InitContainers[1].SecurityContext.AllowPrivilegeEscalation = ptr.To(true)
			pod.Containers[0].StartupProbe = nil
			g.Expect(k8sClient.Update(ctx, d)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) {
			pod := getDeployment(ns, "full")(g).Spec.Template.Spec
			g.Expect(pod.Volumes[0].ConfigMap.Name).To(Equal("shop"))
			g.Expect(pod.InitContainers[1].Image).To(Equal("example.com/proxy:1"))
			g.Expect(pod.InitContainers[1].SecurityContext.AllowPrivilegeEscalation).To(Equal(ptr.To(false)))
			g.Expect(pod.Containers[0].StartupProbe).NotTo(BeNil())
		}, timeout, interval).Should(Succeed())

		By("the WebApp drops its sidecars, init containers, volumes, extra ports and probes")
		Eventually(func(g Gomega) {
			app := fetch(ns, "full")
			app.Spec.Sidecars, app.Spec.InitContainers, app.Spec.Volumes, app.Spec.Ports, app.Spec.Probes = nil, nil, nil, nil, nil
			g.Expect(k8sClient.Update(ctx, app)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) {
			pod := getDeployment(ns, "full")(g).Spec.Template.Spec
			g.Expect(pod.InitContainers).To(BeEmpty())
			g.Expect(pod.Volumes).To(BeEmpty())
			g.Expect(pod.Containers[0].VolumeMounts).To(BeEmpty())
			g.Expect(pod.Containers[0].Ports).To(HaveLen(1))
			g.Expect(pod.Containers[0].ReadinessProbe).To(BeNil())
			g.Expect(getService(ns, "full")(g).Spec.Ports).To(HaveLen(1))
		}, timeout, interval).Should(Succeed())
	})
})
