package olm

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
)

// OLM v1's objects, unstructured: its API module would pull another Kubernetes into the test module.
var (
	clusterCatalogGVK   = schema.GroupVersionKind{Group: "olm.operatorframework.io", Version: "v1", Kind: "ClusterCatalog"}
	clusterExtensionGVK = schema.GroupVersionKind{Group: "olm.operatorframework.io", Version: "v1",
		Kind: "ClusterExtension"}
	webappsCRD = "webapps." + webappv1.GroupVersion.Group
)

// make test-olmv1 runs these specs (hack/olmv1.sh), after OLM v1 is installed; make test-olm leaves them out.
// 0.3.0 carries a conversion webhook, which OLM v1 installs only with a webhook certificate provider
// (cert-manager, behind operator-controller's WebhookProviderCertManager feature gate); the upgrade
// spec needs one on the cluster.
var _ = Describe("webapp-operator through OLM v1", Label("olmv1"), Ordered, func() {
	var ns string
	var wa *webappv1.WebApp
	catalog := &unstructured.Unstructured{}

	BeforeAll(func() {
		// OLM v0 never deletes a CRD: one left by test-olm would be an object OLM v1 did not create,
		// which it refuses to take over.
		deleteWebAppsCRD()
		ns = newNamespace("olmv1", true)
		dumpOnFailureV1(ns)
		catalog.SetGroupVersionKind(clusterCatalogGVK)
		catalog.SetName("webapp-operator")
		Expect(unstructured.SetNestedMap(catalog.Object, map[string]any{"type": "Image",
			"image": map[string]any{"ref": catalogV1, "pollIntervalMinutes": int64(1)}}, "spec", "source")).To(Succeed())
		Expect(k8s.Create(ctx, catalog)).To(Succeed())
		DeferCleanup(func() { _ = k8s.Delete(ctx, catalog) })
	})

	It("serves the project's file-based catalog from a ClusterCatalog", func() {
		expectCondition(catalog, "Serving")
	})

	It("installs 0.2.0 from a ClusterExtension: Installed, the operator running, a WebApp Ready and answering", func() {
		ext := clusterExtension(ns, "")
		Expect(k8s.Create(ctx, ext)).To(Succeed())
		expectInstalledV1(ns, "0.2.0")
		wa = createDemo(ns, nil)
		expectReady(wa)
		startProber(wa, time.Second).Stop() // it starts once the Service answers 200
	})

	It("upgrades to 0.3.0 along catalog v2's stable-v1beta1 edge, the WebApp serving, and stores v1beta1", func() {
		before := readAlpha(wa)
		upgradeKeepsServing(wa, "0.3.0", func() {
			Expect(k8s.Get(ctx, client.ObjectKeyFromObject(catalog), catalog)).To(Succeed())
			Expect(unstructured.SetNestedField(catalog.Object, catalogV2, "spec", "source", "image", "ref")).To(Succeed())
			Expect(k8s.Update(ctx, catalog)).To(Succeed())
		}, expectInstalledV1)
		expectMigrated(before)
	})

	It("keeps the CRD and the apps when the ClusterExtension is deleted with --cascade=orphan", func() {
		ext := clusterExtension(ns, "")
		Expect(k8s.Delete(ctx, ext, client.PropagationPolicy(metav1.DeletePropagationOrphan))).To(Succeed())
		Eventually(func() bool { return gone(ext) }).Should(BeTrue())
		before := childrenOf(wa)
		Consistently(func() children { return childrenOf(wa) }, 10*time.Second).Should(Equal(before))
		expectReady(wa)
		startProber(wa, time.Second).Stop()
	})

	It("takes the orphans back with a new ClusterExtension of the same name", func() {
		before := childrenOf(wa)
		Expect(k8s.Create(ctx, clusterExtension(ns, ""))).To(Succeed())
		expectInstalledV1(ns, "0.3.0")
		Consistently(func() children { return childrenOf(wa) }, 5*time.Second).Should(Equal(before))
	})

	It("deletes the CRD, every WebApp and their apps when the ClusterExtension is deleted", func() {
		Expect(k8s.Delete(ctx, clusterExtension(ns, ""))).To(Succeed())
		Eventually(func(g Gomega) {
			crd := &metav1.PartialObjectMetadata{}
			crd.SetGroupVersionKind(crdGVK)
			g.Expect(apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Name: webappsCRD}, crd))).To(BeTrue(), "CRD gone")
			g.Expect(apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKeyFromObject(wa), &appsv1.Deployment{}))).
				To(BeTrue(), "app's Deployment gone")
			g.Expect(apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKeyFromObject(wa), &corev1.Service{}))).
				To(BeTrue(), "app's Service gone")
			g.Expect(apierrors.IsNotFound(k8s.Get(ctx,
				client.ObjectKey{Namespace: ns, Name: "webapp-operator-controller-manager"},
				&appsv1.Deployment{}))).To(BeTrue(), "operator gone")
		}).Should(Succeed())
	})

	// A CRD with a conversion webhook is served by one operator for every namespace: OLM v1 refuses
	// such a bundle for a watchNamespace (its CheckConversionWebhookSupport, kept for parity with OLM v0).
	It("refuses 0.3.0 for one namespace (config.inline.watchNamespace): a conversion webhook needs AllNamespaces", func() {
		own := newNamespace("olmv1-own", true)
		// strict: a ClusterExtension CRD without spec.config (OLM v1's standard manifest) must not drop it
		Expect(k8s.Create(ctx, clusterExtension(own, own), client.FieldValidation("Strict"))).To(Succeed())
		DeferCleanup(func() { _ = k8s.Delete(ctx, clusterExtension(own, "")) })
		ext := clusterExtension(own, "")
		Consistently(func(g Gomega) {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(ext), ext)).To(Succeed())
			c := meta.FindStatusCondition(conditionsOf(ext), "Installed")
			g.Expect(c == nil || c.Status != metav1.ConditionTrue).To(BeTrue(), "installed for one namespace")
			g.Expect(apierrors.IsNotFound(k8s.Get(ctx,
				client.ObjectKey{Namespace: own, Name: "webapp-operator-controller-manager"}, &appsv1.Deployment{}))).
				To(BeTrue(), "no operator for one namespace")
		}, 30*time.Second).Should(Succeed())
	})
})

// clusterExtension is the ClusterExtension "webapp-operator" installing into ns from every catalog,
// for watchNamespace when not empty. No ServiceAccount: OLM v1 ignores it and installs with its own.
func clusterExtension(ns, watchNamespace string) *unstructured.Unstructured {
	ext := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
		"namespace": ns,
		"source":    map[string]any{"sourceType": "Catalog", "catalog": map[string]any{"packageName": "webapp-operator"}},
	}}}
	if watchNamespace != "" {
		ext.Object["spec"].(map[string]any)["config"] = map[string]any{"configType": "Inline",
			"inline": map[string]any{"watchNamespace": watchNamespace}}
	}
	ext.SetGroupVersionKind(clusterExtensionGVK)
	ext.SetName("webapp-operator")
	return ext
}

// expectCondition waits until obj's condition typ is True.
func expectCondition(obj *unstructured.Unstructured, typ string) {
	Eventually(func(g Gomega) {
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
		c := meta.FindStatusCondition(conditionsOf(obj), typ)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Status).To(Equal(metav1.ConditionTrue), "%s: %s", c.Reason, c.Message)
	}).Should(Succeed(), "%s %s", obj.GetName(), typ)
}

var crdGVK = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}

// gone reports whether obj no longer exists.
func gone(obj client.Object) bool {
	return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj))
}

func conditionsOf(obj *unstructured.Unstructured) []metav1.Condition {
	raw, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	out := make([]metav1.Condition, 0, len(raw))
	for _, r := range raw {
		m, _ := r.(map[string]any)
		s := func(k string) string { v, _ := m[k].(string); return v }
		out = append(out, metav1.Condition{Type: s("type"), Status: metav1.ConditionStatus(s("status")),
			Reason: s("reason"), Message: s("message")})
	}
	return out
}

// expectInstalledV1 waits until the ClusterExtension reports version installed and the operator runs it.
func expectInstalledV1(ns, version string) {
	ext := clusterExtension(ns, "")
	Eventually(func(g Gomega) {
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(ext), ext)).To(Succeed())
		c := meta.FindStatusCondition(conditionsOf(ext), "Installed")
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Status).To(Equal(metav1.ConditionTrue), "%s: %s", c.Reason, c.Message)
		got, _, _ := unstructured.NestedString(ext.Object, "status", "install", "bundle", "version")
		g.Expect(got).To(Equal(version))
	}).Should(Succeed(), "ClusterExtension installed %s", version)
	expectOperatorImage(ns, version)
}

// dumpOnFailureV1 prints what explains an OLM v1 failure.
func dumpOnFailureV1(ns string) {
	DeferCleanup(func() {
		if !CurrentSpecReport().Failed() {
			return
		}
		dump := func(args ...string) { _, _ = run(kubectl, args...) }
		dump("get", "clustercatalogs,clusterextensions", "-o", "yaml")
		dump("-n", ns, "get", "deploy,pods,webapps", "-o", "wide")
		dump("-n", "olmv1-system", "logs", "deploy/operator-controller-controller-manager", "--tail=80")
		dump("-n", "olmv1-system", "logs", "deploy/catalogd-controller-manager", "--tail=40")
	})
}
