package olm

import (
	"bytes"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

const crdName = "webapps.apps.webapp-operator.io"

// readAlpha reads the WebApp as v1alpha1, the version 0.2.0 serves and stores alone.
func readAlpha(wa *webappv1.WebApp) *webappv1.WebApp {
	GinkgoHelper()
	got := &webappv1.WebApp{}
	Expect(k8s.Get(ctx, client.ObjectKeyFromObject(wa), got)).To(Succeed())
	return got
}

// expectCRD waits until the WebApp CRD serves the versions served and lists stored as its
// status.storedVersions.
func expectCRD(served, stored []string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		var crd apiextensionsv1.CustomResourceDefinition
		g.Expect(k8s.Get(ctx, client.ObjectKey{Name: crdName}, &crd)).To(Succeed())
		var got []string
		for _, v := range crd.Spec.Versions {
			if v.Served {
				got = append(got, v.Name)
			}
		}
		g.Expect(got).To(ConsistOf(served), "served versions")
		g.Expect(crd.Status.StoredVersions).To(Equal(stored), "status.storedVersions")
	}).Should(Succeed())
}

// expectUpgradeSettled waits until OLM v0 has finished upgrading the operator of ns: the latest
// InstallPlan of its Subscription is Complete, and the CRD's conversion calls the operator's Service
// in ns with OLM's CA. Until then WebApps may not read: the catalog operator applies the bundle's CRD as it is
// (its webhook names the Service in webapp-operator-system) and retries that step until the webhook
// answers, so the step's last try undoes OLM's rewrite, which OLM makes again when it next checks
// the CSV. The apps keep serving meanwhile (upgradeKeepsServing).
func expectUpgradeSettled(ns string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		var subs operatorsv1alpha1.SubscriptionList
		g.Expect(k8s.List(ctx, &subs, client.InNamespace(ns))).To(Succeed())
		g.Expect(subs.Items).To(HaveLen(1))
		sub := subs.Items[0]
		g.Expect(sub.Status.InstallPlanRef).NotTo(BeNil())
		var plan operatorsv1alpha1.InstallPlan
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: sub.Status.InstallPlanRef.Name}, &plan)).To(Succeed())
		g.Expect(plan.Status.Phase).To(Equal(operatorsv1alpha1.InstallPlanPhaseComplete), "InstallPlan %s", plan.Name)
		var crd apiextensionsv1.CustomResourceDefinition
		g.Expect(k8s.Get(ctx, client.ObjectKey{Name: crdName}, &crd)).To(Succeed())
		g.Expect(crd.Spec.Conversion).NotTo(BeNil())
		g.Expect(crd.Spec.Conversion.Webhook).NotTo(BeNil())
		cc := crd.Spec.Conversion.Webhook.ClientConfig
		g.Expect(cc).NotTo(BeNil())
		g.Expect(cc.Service).NotTo(BeNil())
		g.Expect(cc.Service.Namespace).To(Equal(ns), "the conversion calls the Service of the operator in %s", ns)
		g.Expect(cc.CABundle).NotTo(BeEmpty())
	}).Should(Succeed())
}

// expectMigrated checks what a user of the WebApp read as before (v1alpha1, before the upgrade)
// would notice after it: the CRD now stores v1beta1 alone (the storage migration), with a conversion
// webhook; the WebApp reads the same as v1alpha1, and as v1beta1 it has the same metadata and a spec
// that converts back to the same; kubectl lists the same WebApps in both versions.
func expectMigrated(before *webappv1.WebApp) {
	GinkgoHelper()
	expectCRD([]string{"v1alpha1", "v1beta1"}, []string{"v1beta1"})
	var crd apiextensionsv1.CustomResourceDefinition
	Expect(k8s.Get(ctx, client.ObjectKey{Name: crdName}, &crd)).To(Succeed())
	Expect(crd.Spec.Conversion.Strategy).To(Equal(apiextensionsv1.WebhookConverter))

	alpha := readAlpha(before)
	Expect(alpha.Spec).To(Equal(before.Spec), "the spec read as v1alpha1")
	Expect(alpha.Labels).To(Equal(before.Labels))
	Expect(alpha.Annotations).To(Equal(before.Annotations))
	Expect(alpha.Generation).To(Equal(before.Generation), "the migration's rewrite changed no spec")

	beta := &v1beta1.WebApp{}
	Expect(k8s.Get(ctx, client.ObjectKeyFromObject(before), beta)).To(Succeed())
	Expect(beta.Labels).To(Equal(before.Labels))
	// as v1beta1 it may carry, besides its own annotations, what its v1alpha1 form says and v1beta1
	// cannot (api/v1alpha1/carrier.go); ConvertFrom reads it back below
	annotations := maps.Clone(beta.Annotations)
	delete(annotations, webappv1.AlphaCarrierAnnotation)
	Expect(annotations).To(Equal(before.Annotations))
	Expect(beta.Generation).To(Equal(before.Generation))
	back := &webappv1.WebApp{}
	Expect(back.ConvertFrom(beta)).To(Succeed())
	Expect(back.Spec).To(Equal(before.Spec), "the spec read as v1beta1, converted back")

	list := func(version string) []string {
		out, err := kubectlOut("get", "webapps."+version+"."+webappv1.GroupVersion.Group, "-A",
			"-o", `jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{"\n"}{end}`)
		Expect(err).NotTo(HaveOccurred(), out)
		names := strings.Fields(out)
		slices.Sort(names)
		return names
	}
	alphas := list("v1alpha1")
	Expect(alphas).To(ContainElement(before.Namespace + "/" + before.Name))
	Expect(list("v1beta1")).To(Equal(alphas), "kubectl lists the same WebApps in both versions")
}

// kubectlOut runs kubectl and returns its standard output alone (v1alpha1's deprecation warning goes
// to standard error, into the spec's log).
func kubectlOut(args ...string) (string, error) {
	_, _ = fmt.Fprintf(GinkgoWriter, "\n$ %s %s\n", kubectl, strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, kubectl, args...)
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, GinkgoWriter
	err := cmd.Run()
	return strings.TrimSpace(stdout.String()), err
}
