package controller_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// When the API server refuses the operator's own write for a reason outside the spec (a quota, an
// admission policy or webhook, RBAC: 403 or 400, not only 422), the WebApp says so at once and
// Stalls, rechecks slowly, and recovers by itself once the obstacle is gone.
var _ = Describe("A child the API server denies", func() {
	var ns string
	BeforeEach(func() { ns = newNamespace() })

	It("is reported ApplyDenied with a quota's message, and recovers once the quota is raised", func() {
		By("a ResourceQuota that allows no Service (its status filled in, as the quota controller would)")
		quota := &corev1.ResourceQuota{
			ObjectMeta: metav1.ObjectMeta{Name: "no-services", Namespace: ns},
			Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"count/services": resource.MustParse("0")}},
		}
		Expect(k8sClient.Create(ctx, quota)).To(Succeed())
		quota.Status = corev1.ResourceQuotaStatus{Hard: quota.Spec.Hard, Used: corev1.ResourceList{"count/services": resource.MustParse("0")}}
		Expect(k8sClient.Status().Update(ctx, quota)).To(Succeed())

		Expect(k8sClient.Create(ctx, newWebApp(ns, "quota"))).To(Succeed())
		Eventually(condition(ns, "quota", webappv1.ConditionStalled), timeout, interval).Should(And(
			haveStatusReason(metav1.ConditionTrue, status.ReasonApplyDenied),
			HaveField("Message", ContainSubstring("exceeded quota"))))
		Expect(condition(ns, "quota", webappv1.ConditionReconciling)(Default).Status).To(Equal(metav1.ConditionFalse))

		By("no hot loop while denied")
		settled := settledWritesIn(ns)
		Consistently(func() int { return len(requests.WritesIn(ns)) }, 3*time.Second, interval).Should(Equal(settled))

		By("the quota is raised: the next recheck creates the Service, with no edit of the WebApp")
		Eventually(func(g Gomega) {
			q := &corev1.ResourceQuota{}
			g.Expect(k8sClient.Get(ctx, key(ns, "no-services"), q)).To(Succeed())
			q.Spec.Hard["count/services"] = resource.MustParse("10")
			g.Expect(k8sClient.Update(ctx, q)).To(Succeed())
			q.Status.Hard = q.Spec.Hard
			g.Expect(k8sClient.Status().Update(ctx, q)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(getService(ns, "quota"), 2*timeout, interval).ShouldNot(BeNil())
		Eventually(condition(ns, "quota", webappv1.ConditionStalled), timeout, interval).
			Should(HaveField("Status", metav1.ConditionFalse))
	})

	It("is reported ApplyDenied with an admission policy's message, and recovers once the policy goes", func() {
		By("a ValidatingAdmissionPolicy that forbids Deployments in this namespace")
		policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "no-deployments-" + ns},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				FailurePolicy: ptr.To(admissionregistrationv1.Fail),
				MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
						Rule: admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"},
							Resources: []string{"deployments"}},
					}}}},
				Validations: []admissionregistrationv1.Validation{{Expression: "false",
					Message: "Deployments need the platform team's approval here", Reason: ptr.To(metav1.StatusReasonForbidden)}},
			},
		}
		Expect(k8sClient.Create(ctx, policy)).To(Succeed())
		binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "no-deployments-" + ns},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
				PolicyName:        policy.Name,
				ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
				MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
					MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}}},
			},
		}
		Expect(k8sClient.Create(ctx, binding)).To(Succeed())
		DeferCleanup(func() { _ = k8sClient.Delete(ctx, policy) })
		// the policy takes effect a moment after it is created
		Eventually(func() bool {
			labels := map[string]string{"app": "probe"}
			d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: ns}, Spec: appsv1.DeploymentSpec{
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}},
			}}
			return apierrors.IsForbidden(k8sClient.Create(ctx, d, client.DryRunAll))
		}, timeout, interval).Should(BeTrue())

		Expect(k8sClient.Create(ctx, newWebApp(ns, "policy"))).To(Succeed())
		Eventually(condition(ns, "policy", webappv1.ConditionStalled), timeout, interval).Should(And(
			haveStatusReason(metav1.ConditionTrue, status.ReasonApplyDenied),
			HaveField("Message", ContainSubstring("Deployments need the platform team's approval here"))))

		By("the policy's binding goes: the next recheck converges, with no edit of the WebApp")
		Expect(k8sClient.Delete(ctx, binding)).To(Succeed())
		Eventually(getDeployment(ns, "policy"), 2*timeout, interval).ShouldNot(BeNil())
		Eventually(getService(ns, "policy"), timeout, interval).ShouldNot(BeNil())
	})
})
