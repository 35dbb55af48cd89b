package integration

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

var _ = Describe("Pod Security admission, in a namespace that enforces restricted", func() {
	var ns string
	BeforeEach(func() { ns = newNamespace(map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}) })

	It("admits the pods of a WebApp that asks for nothing special: they are restricted by default", func() {
		app := &webappv1.WebApp{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "plain"},
			Spec: webappv1.WebAppSpec{Image: "example.com/shop:1.0", Replicas: ptr.To[int32](2),
				Sidecars:       []webappv1.Container{{Name: "proxy", Image: "example.com/proxy:1"}},
				InitContainers: []webappv1.Container{{Name: "migrate", Image: "example.com/migrate:1"}},
				Volumes:        []webappv1.Volume{{Name: "scratch", MountPath: "/tmp", EmptyDir: &webappv1.EmptyDirVolume{}}}},
		}
		Expect(k8s.Create(ctx, app)).To(Succeed())
		// There is no node: the pods exist (admission let them in) but never run.
		Eventually(func(g Gomega) {
			pods := &corev1.PodList{}
			g.Expect(k8s.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels(resources.SelectorLabels(hub(app))))).
				To(Succeed())
			g.Expect(pods.Items).To(HaveLen(2))
		}, timeout, interval).Should(Succeed())
		d := &appsv1.Deployment{}
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), d)).To(Succeed())
		for _, c := range d.Status.Conditions {
			Expect(c.Type).NotTo(Equal(appsv1.DeploymentReplicaFailure), "%s", c.Message)
		}
	})

	It("refuses the pods of a WebApp that asks for root, and the WebApp says so at once, with its message", func() {
		app := &webappv1.WebApp{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "psa"},
			Spec: webappv1.WebAppSpec{Image: "example.com/shop:1.0", Replicas: ptr.To[int32](2),
				Security: &webappv1.Security{RunAsUser: ptr.To[int64](0)}},
		}
		Expect(k8s.Create(ctx, app)).To(Succeed())

		By("the ReplicaSet controller fails to create the pods; the Deployment reports ReplicaFailure")
		var failedAt time.Time
		Eventually(func(g Gomega) {
			d := &appsv1.Deployment{}
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(app), d)).To(Succeed())
			var found bool
			for _, c := range d.Status.Conditions {
				if c.Type == appsv1.DeploymentReplicaFailure && c.Status == corev1.ConditionTrue {
					found, failedAt = true, c.LastUpdateTime.Time
				}
			}
			g.Expect(found).To(BeTrue())
		}, timeout, interval).Should(Succeed())

		By("the WebApp is Stalled with the API server's message, within one reconcile of that")
		Eventually(readyCondition(ns, "psa"), 10*time.Second, interval).Should(And(
			HaveField("Status", metav1.ConditionFalse),
			HaveField("Reason", status.ReasonReplicaFailure),
			HaveField("Message", And(
				ContainSubstring(`violates PodSecurity "restricted:latest"`), ContainSubstring("runAsUser=0")))))
		c := readyCondition(ns, "psa")(Default)
		Expect(c.LastTransitionTime.Sub(failedAt)).To(BeNumerically("<", 10*time.Second),
			"reported %s after the Deployment's ReplicaFailure", c.LastTransitionTime.Sub(failedAt))
	})
})
