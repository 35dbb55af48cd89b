package olm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
)

// One ordered container: the two ways of installing must not overlap, or two operators would
// reconcile the same WebApps (run bundle installs for all namespaces).
var _ = Describe("webapp-operator through OLM", Ordered, func() {
	Describe("operator-sdk run bundle", runBundle)
	Describe("a Subscription to the catalog", subscription)
})

func runBundle() {
	var ns string
	var wa *webappv1.WebApp

	BeforeAll(func() {
		// Not restricted: the registry pod that operator-sdk run bundle creates for a file-based catalog
		// leaves its init container without a restricted securityContext, even with
		// --security-context-config=restricted (operator-sdk issue 7039, open at the version we pin).
		ns = newNamespace("olm-run-bundle", false)
		dumpOnFailure(ns)
	})

	It("installs bundle 0.2.0 for all namespaces: the CSV succeeds, a WebApp created as v1alpha1 becomes Ready", func() {
		// 0.2.0 supports every install mode; run bundle then picks AllNamespaces
		out, err := run(operatorSDK, "run", "bundle", bundleImageBase+":v0.2.0", "-n", ns,
			"--index-image", opmImage, "--decompression-image", busyboxImage, "--use-http", "--timeout", "5m")
		Expect(err).NotTo(HaveOccurred(), out)
		expectRunning(ns, "0.2.0")
		expectCRD([]string{"v1alpha1"}, []string{"v1alpha1"})
		wa = createRoutedDemo(ns)
		expectReady(wa)
	})

	It("upgrades to 0.3.0 with run bundle-upgrade while the WebApp keeps serving, and stores it as v1beta1", func() {
		before := readAlpha(wa)
		upgradeKeepsServing(wa, "0.3.0", func() {
			out, err := run(operatorSDK, "run", "bundle-upgrade", bundleImageBase+":v0.3.0", "-n", ns,
				"--use-http", "--timeout", "5m")
			Expect(err).NotTo(HaveOccurred(), out)
		}, expectRunning)
		expectUpgradeSettled(ns)
		expectMigrated(before)
	})

	It("is removed by operator-sdk cleanup, WebApps and CRD included", func() {
		out, err := run(operatorSDK, "cleanup", "webapp-operator", "-n", ns, "--timeout", "3m")
		Expect(err).NotTo(HaveOccurred(), out)
		Eventually(func(g Gomega) {
			var csvs operatorsv1alpha1.ClusterServiceVersionList
			g.Expect(k8s.List(ctx, &csvs, client.InNamespace(ns))).To(Succeed())
			g.Expect(csvs.Items).To(BeEmpty())
		}).Should(Succeed())
	})
}

func subscription() {
	var ns string
	var wa *webappv1.WebApp
	catalog := &operatorsv1alpha1.CatalogSource{}

	BeforeAll(func() {
		ns = newNamespace("olm-subscription", true)
		dumpOnFailure(ns)
	})

	It("installs 0.2.0 from channel stable under an OwnNamespace OperatorGroup: a WebApp becomes Ready", func() {
		*catalog = operatorsv1alpha1.CatalogSource{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "webapp-operator-catalog"},
			Spec: operatorsv1alpha1.CatalogSourceSpec{SourceType: operatorsv1alpha1.SourceTypeGrpc, Image: catalogV1,
				DisplayName: "webapp-operator", Publisher: "webapp-operator",
				GrpcPodConfig: &operatorsv1alpha1.GrpcPodConfig{SecurityContextConfig: operatorsv1alpha1.Restricted}},
		}
		Expect(k8s.Create(ctx, catalog)).To(Succeed())
		expectCatalogReady(catalog)
		Expect(k8s.Create(ctx, &operatorsv1.OperatorGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "webapp-operator"},
			Spec:       operatorsv1.OperatorGroupSpec{TargetNamespaces: []string{ns}},
		})).To(Succeed())
		Expect(k8s.Create(ctx, &operatorsv1alpha1.Subscription{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "webapp-operator"},
			Spec: &operatorsv1alpha1.SubscriptionSpec{Package: "webapp-operator", Channel: "stable",
				CatalogSource: catalog.Name, CatalogSourceNamespace: ns,
				InstallPlanApproval: operatorsv1alpha1.ApprovalAutomatic},
		})).To(Succeed())
		expectRunning(ns, "0.2.0")
		wa = createRoutedDemo(ns)
		expectReady(wa)
	})

	It("stays at 0.2.0 when the catalog offers 0.3.0 on a new default channel: no namespace-scoped break", func() {
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(catalog), catalog)).To(Succeed())
		catalog.Spec.Image = catalogV2
		Expect(k8s.Update(ctx, catalog)).To(Succeed())
		Eventually(func() (string, error) {
			return kubectlOut("-n", ns, "get", "packagemanifest", "webapp-operator", "-o", "jsonpath={.status.defaultChannel}")
		}).Should(Equal("stable-v1beta1"), "OLM serves catalog v2")
		Consistently(func(g Gomega) {
			sub := getSubscription(g, ns)
			g.Expect(sub.Status.InstalledCSV).To(Equal("webapp-operator.v0.2.0"))
			g.Expect(sub.Status.State).To(BeEquivalentTo(operatorsv1alpha1.SubscriptionStateAtLatest))
			var csvs operatorsv1alpha1.ClusterServiceVersionList
			g.Expect(k8s.List(ctx, &csvs, client.InNamespace(ns))).To(Succeed())
			g.Expect(csvs.Items).To(HaveLen(1))
		}, 20*time.Second).Should(Succeed())
		expectCRD([]string{"v1alpha1"}, []string{"v1alpha1"})
		expectRunning(ns, "0.2.0")
		expectReady(wa)
	})

	It("crosses to 0.3.0 the documented way (AllNamespaces, channel stable-v1beta1), the WebApp serving", func() {
		before := readAlpha(wa)
		upgradeKeepsServing(wa, "0.3.0", func() {
			retarget(ns)
			expectWatching(ns, "0.2.0")
			Eventually(func(g Gomega) {
				sub := getSubscription(g, ns)
				sub.Spec.Channel = "stable-v1beta1"
				g.Expect(k8s.Update(ctx, sub)).To(Succeed())
			}).Should(Succeed())
		}, expectRunning)
		expectUpgradeSettled(ns)
		expectMigrated(before)
		Eventually(func(g Gomega) {
			sub := getSubscription(g, ns)
			g.Expect(sub.Status.InstalledCSV).To(Equal("webapp-operator.v0.3.0"))
			g.Expect(sub.Status.State).To(BeEquivalentTo(operatorsv1alpha1.SubscriptionStateAtLatest))
		}).Should(Succeed())
	})

	Describe("operator-sdk scorecard in the cluster", func() {
		var config string

		BeforeAll(func() {
			config = scorecardConfig(filepath.Join(GinkgoT().TempDir(), "config.yaml"), "--image="+demoImageBase+":v1")
			createScorecardAccount(ns)
			// Scorecard's own pods run its untar image as the image's user; the busybox that the local
			// registry serves runs as root, which the restricted level refuses (--pod-security=restricted
			// sets runAsNonRoot). The operator and the WebApps were installed and upgraded under
			// restricted above; the test pods run under baseline.
			namespace := &corev1.Namespace{}
			Expect(k8s.Get(ctx, client.ObjectKey{Name: ns}, namespace)).To(Succeed())
			namespace.Labels["pod-security.kubernetes.io/enforce"] = "baseline"
			Expect(k8s.Update(ctx, namespace)).To(Succeed())
		})

		It("passes the six built-in tests and webapp-operator's own sample-becomes-ready", func() {
			results := scorecard(ns, config)
			Expect(results).To(HaveLen(7))
			for name, r := range results {
				Expect(r.State).To(Equal(scapiv1alpha3.PassState), "%s: %v\n%s", name, r.Errors, r.Log)
			}
			Expect(results).To(HaveKey("sample-becomes-ready"))
			Expect(results["sample-becomes-ready"].Log).To(ContainSubstring("Ready after"))
		})

		It("fails sample-becomes-ready with the reason when the sample cannot start", func() {
			broken := scorecardConfig(filepath.Join(GinkgoT().TempDir(), "config.yaml"),
				"--image="+demoImageBase+":does-not-exist", "--timeout=40s")
			results := scorecard(ns, broken, "--selector", "test=sample-becomes-ready")
			Expect(results).To(HaveLen(1))
			r := results["sample-becomes-ready"]
			Expect(r.State).To(Equal(scapiv1alpha3.FailState))
			Expect(r.Errors).To(HaveLen(1))
			Expect(r.Errors[0]).To(ContainSubstring("did not become Ready within 40s"))
			Expect(r.Errors[0]).To(MatchRegexp(`PodFailing: pod \S+: (ErrImagePull|ImagePullBackOff)`))
		})
	})
	Describe("for all namespaces, the one install mode 0.3.0 supports", func() { allNamespaces(&ns, &wa) })
}

// getSubscription reads the Subscription the specs make in ns.
func getSubscription(g Gomega, ns string) *operatorsv1alpha1.Subscription {
	sub := &operatorsv1alpha1.Subscription{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "webapp-operator"}, sub)).To(Succeed())
	return sub
}

func expectCatalogReady(cs *operatorsv1alpha1.CatalogSource) {
	Eventually(func(g Gomega) {
		var got operatorsv1alpha1.CatalogSource
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(cs), &got)).To(Succeed())
		g.Expect(got.Status.GRPCConnectionState).NotTo(BeNil())
		g.Expect(got.Status.GRPCConnectionState.LastObservedState).To(Equal("READY"))
	}).Should(Succeed(), "CatalogSource %s READY", cs.Name)
}

// scorecardConfig writes the bundle's scorecard config with the images of the local registry, and
// ownArgs appended to webapp-operator's own test (the sample's public image cannot be pulled here).
func scorecardConfig(path string, ownArgs ...string) string {
	data, err := os.ReadFile(filepath.Join(bundleDir, "tests", "scorecard", "config.yaml"))
	Expect(err).NotTo(HaveOccurred())
	var cfg scapiv1alpha3.Configuration
	Expect(yaml.Unmarshal(data, &cfg)).To(Succeed())
	for i := range cfg.Stages {
		for j := range cfg.Stages[i].Tests {
			t := &cfg.Stages[i].Tests[j]
			switch {
			case strings.Contains(t.Image, "/scorecard-test:"):
				t.Image = scorecardImage
			case strings.Contains(t.Image, "-scorecard:"):
				t.Image = ownTestImage
				t.Entrypoint = append(t.Entrypoint, ownArgs...)
			default:
				Fail("unexpected scorecard test image " + t.Image)
			}
		}
	}
	out, err := yaml.Marshal(cfg)
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(path, out, 0o644)).To(Succeed())
	return path
}

// createScorecardAccount gives scorecard's test pods a ServiceAccount that may manage WebApps in ns,
// which webapp-operator's own test needs (docs/olm.md shows the same for users).
func createScorecardAccount(ns string) {
	meta := metav1.ObjectMeta{Namespace: ns, Name: "webapp-scorecard"}
	Expect(k8s.Create(ctx, &corev1.ServiceAccount{ObjectMeta: meta})).To(Succeed())
	Expect(k8s.Create(ctx, &rbacv1.Role{
		ObjectMeta: meta,
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{webappv1.GroupVersion.Group}, Resources: []string{"webapps"},
			Verbs: []string{"get", "list", "watch", "create", "delete"}}},
	})).To(Succeed())
	Expect(k8s.Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: meta,
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "webapp-scorecard"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: "webapp-scorecard"}},
	})).To(Succeed())
}

// scorecard runs operator-sdk scorecard on the bundle in ns and returns the results by test name.
func scorecard(ns, config string, extra ...string) map[string]scapiv1alpha3.TestResult {
	args := append([]string{"scorecard", bundleDir, "--config", config, "-n", ns, "-s", "webapp-scorecard",
		"--storage-image", busyboxImage, "--untar-image", busyboxImage, "--wait-time", "300s", "-o", "json"}, extra...)
	out, _ := run(operatorSDK, args...) // non-zero when a test fails: the JSON tells which
	start := strings.Index(out, "{")
	Expect(start).To(BeNumerically(">=", 0), "no JSON in scorecard's output")
	var list scapiv1alpha3.TestList
	Expect(json.Unmarshal([]byte(out[start:]), &list)).To(Succeed(), out)
	results := map[string]scapiv1alpha3.TestResult{}
	for _, t := range list.Items {
		for _, r := range t.Status.Results {
			results[r.Name] = r
		}
	}
	return results
}
