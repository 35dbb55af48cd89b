package controller_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// A WebApp that an older, looser CRD admitted may hold a value the operator's types cannot decode.
// It must be reported on its own, and must not stop the operator for the others, before or after
// the operator restarts.
var _ = Describe("A WebApp the operator cannot decode", Ordered, func() {
	var ns string
	var strict *apiextensionsv1.CustomResourceDefinition
	const crdName = "webapps.apps.webapp-operator.io"

	// poisoned is a WebApp whose cpu request is "1e1.5": core/v1's quantity pattern admits it,
	// resource.ParseQuantity refuses it (a decimal exponent).
	poisoned := func(name string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(webappv1.GroupVersion.WithKind("WebApp"))
		u.SetNamespace(ns)
		u.SetName(name)
		Expect(unstructured.SetNestedField(u.Object, "example.com/shop:1.0", "spec", "image")).To(Succeed())
		Expect(unstructured.SetNestedField(u.Object, "1e1.5", "spec", "resources", "requests", "cpu")).To(Succeed())
		return u
	}
	// admitted reports whether the API server would admit a poisoned WebApp now (a dry run).
	admitted := func() bool { return k8sClient.Create(ctx, poisoned("probe"), client.DryRunAll) == nil }

	BeforeAll(func() {
		ns = newNamespace()
		strict = &apiextensionsv1.CustomResourceDefinition{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: crdName}, strict)).To(Succeed())
	})
	AfterAll(func() {
		// the test client lists WebApps nowhere, but later specs should not meet this one
		_ = k8sClient.Delete(ctx, poisoned("poisoned"))
	})

	It("is admitted by a CRD without the rule, as an older release's was", func() {
		createReady(newWebApp(ns, "before"))

		By("installing a CRD whose resources admit anything, as an older CRD would")
		Eventually(func(g Gomega) {
			loose := &apiextensionsv1.CustomResourceDefinition{}
			g.Expect(k8sClient.Get(ctx, client.ObjectKey{Name: crdName}, loose)).To(Succeed())
			spec := loose.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
			spec.Properties["resources"] = apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}
			loose.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
			g.Expect(k8sClient.Update(ctx, loose)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(admitted, timeout, interval).Should(BeTrue())
		Expect(k8sClient.Create(ctx, poisoned("poisoned"))).To(Succeed())

		By("putting the strict CRD back")
		Eventually(func(g Gomega) {
			current := &apiextensionsv1.CustomResourceDefinition{}
			g.Expect(k8sClient.Get(ctx, client.ObjectKey{Name: crdName}, current)).To(Succeed())
			current.Spec = strict.Spec
			g.Expect(k8sClient.Update(ctx, current)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(admitted, timeout, interval).Should(BeFalse())
	})

	It("is reported Stalled InvalidSpec, naming the field, and gets no children", func() {
		Eventually(rawCondition(ns, "poisoned", webappv1.ConditionStalled), timeout, interval).Should(And(
			haveStatusReason(metav1.ConditionTrue, status.ReasonInvalidSpec),
			HaveField("Message", ContainSubstring(`spec.resources.requests["cpu"]`))))
		Expect(apierrors.IsNotFound(k8sClient.Get(ctx, key(ns, "poisoned"), &appsv1.Deployment{}))).To(BeTrue())
	})

	It("does not stop the others: existing WebApps are scaled, new ones converge", expectOthersConverge(&ns, "after"))

	It("does not stop the others after an operator restart either", func() {
		restartManager()
		expectOthersConverge(&ns, "after-restart")()
		Eventually(rawCondition(ns, "poisoned", webappv1.ConditionStalled), timeout, interval).
			Should(haveStatusReason(metav1.ConditionTrue, status.ReasonInvalidSpec))
	})
})

// expectOthersConverge scales the WebApp "before" and creates a new WebApp that must become Ready.
func expectOthersConverge(ns *string, name string) func() {
	return func() {
		GinkgoHelper()
		n := int32(3)
		if name == "after" {
			n = 4
		}
		bumpReplicas(*ns, "before", n)
		Eventually(func(g Gomega) *int32 { return getDeployment(*ns, "before")(g).Spec.Replicas }, timeout, interval).
			Should(Equal(ptr.To(n)))
		createReady(newWebApp(*ns, name))
	}
}

// rawCondition is condition for a WebApp that the Go types cannot decode: only its status is decoded.
func rawCondition(ns, name, condType string) func(g Gomega) *metav1.Condition {
	return func(g Gomega) *metav1.Condition {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(webappv1.GroupVersion.WithKind("WebApp"))
		g.Expect(k8sClient.Get(ctx, key(ns, name), u)).To(Succeed())
		var st webappv1.WebAppStatus
		raw, _ := u.Object["status"].(map[string]any)
		g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &st)).To(Succeed())
		g.Expect(st.ObservedGeneration).To(Equal(u.GetGeneration()), "status is for an older generation")
		c := meta.FindStatusCondition(st.Conditions, condType)
		g.Expect(c).NotTo(BeNil(), "condition %s missing", condType)
		return c
	}
}
