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
	"github.com/webapp-operator/webapp-operator/internal/status"
)

var _ = Describe("A WebApp whose pods the API server refuses", func() {
	It("says so at once, with Pod Security admission's message, in a namespace that enforces restricted", func() {
		ns := newNamespace(map[string]string{"pod-security.kubernetes.io/enforce": "restricted"})
		app := &webappv1.WebApp{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "psa"},
			Spec:       webappv1.WebAppSpec{Image: "example.com/shop:1.0", Replicas: ptr.To[int32](2)},
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
			HaveField("Message", ContainSubstring(`violates PodSecurity "restricted:latest"`))))
		c := readyCondition(ns, "psa")(Default)
		Expect(c.LastTransitionTime.Sub(failedAt)).To(BeNumerically("<", 10*time.Second),
			"reported %s after the Deployment's ReplicaFailure", c.LastTransitionTime.Sub(failedAt))
	})
})
