// Package olm tests how users get webapp-operator: through OLM, on the real local cluster.
//
//	make cluster-up test-olm
//
// `make test-olm` installs the gateway (make gateway-install: Traefik and the Gateway API's CRDs, before
// any operator starts), builds and pushes every image to the cluster's registry (hack/olm.sh images:
// 0.2.0 from its release tag, 0.3.0 from the working tree), installs OLM (hack/olm.sh install), builds
// the two catalogs and runs this suite inside the node's network namespace, where the registry, the
// API server and ClusterIPs are all reachable. 0.2.0 serves and stores v1alpha1 alone; 0.3.0 stores
// v1beta1, converts through its webhook and supports AllNamespaces alone. The specs run in order:
//
//  1. `operator-sdk run bundle` installs 0.2.0 for all namespaces, a WebApp is created as v1alpha1,
//     `run bundle-upgrade` moves the operator to 0.3.0 while the WebApp answers every request through
//     its Service and through the gateway; the CRD then stores v1beta1 alone and the WebApp reads the
//     same in both versions with the same children and pods; then `operator-sdk cleanup`;
//  2. a CatalogSource, an OwnNamespace OperatorGroup and a Subscription on channel stable install 0.2.0;
//     the catalog that adds 0.3.0 on the new default channel stable-v1beta1 leaves it at 0.2.0; the way
//     across (the OperatorGroup re-targeted to all namespaces, the Subscription moved to
//     stable-v1beta1) upgrades it with the same checks as 1;
//  3. `operator-sdk scorecard ./bundle` runs the six built-in tests and webapp-operator's own test in
//     the cluster, and the own test fails with a readable reason when the sample cannot become Ready;
//  4. for all namespaces: a WebApp in another namespace goes Ready, the ServiceAccount reads no Secret
//     until Secret rollouts are switched on through the Subscription (which then roll the pods once),
//     and an OperatorGroup narrowed to one namespace is refused while the apps keep serving.
package olm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/rand"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/config"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/test/framework"
)

// Images and binaries, as hack/olm.sh env prints them (the Makefile passes them on).
var (
	operatorSDK     = framework.EnvOr("OPERATOR_SDK", "operator-sdk")
	kubectl         = framework.EnvOr("KUBECTL", "kubectl")
	opmImage        = framework.MustEnv("OPM_IMG")
	busyboxImage    = framework.MustEnv("BUSYBOX_IMG")
	bundleImageBase = framework.MustEnv("BUNDLE_IMG_BASE")
	// each version's operator image, by digest: "0.2.0=REPO@sha256:... 0.3.0=REPO@sha256:..."
	operatorImages = framework.MustEnv("OPERATOR_IMGS")
	demoImageBase  = framework.MustEnv("DEMO_IMG_BASE")
	scorecardImage = framework.MustEnv("SCORECARD_TEST_IMG")
	ownTestImage   = framework.MustEnv("WEBAPP_SCORECARD_IMG")
	catalogV1      = framework.MustEnv("CATALOG_V1_IMG") // stable: 0.2.0
	catalogV2      = framework.MustEnv("CATALOG_V2_IMG") // stable: 0.2.0; stable-v1beta1 (default): 0.2.0, 0.3.0
	bundleDir      = framework.EnvOr("BUNDLE_DIR", "../../bundle")
)

var (
	ctx    context.Context
	cancel context.CancelFunc
	k8s    client.Client
	scheme = runtime.NewScheme()
)

func TestOLM(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(4 * time.Minute)
	SetDefaultEventuallyPollingInterval(time.Second)
	RunSpecs(t, "OLM suite (local cluster)")
}

var _ = BeforeSuite(func() {
	Expect(framework.Missing(opmImage, busyboxImage, bundleImageBase, operatorImages, demoImageBase, scorecardImage,
		ownTestImage, catalogV1, catalogV2)).To(BeEmpty(),
		"run the suite with `make test-olm`, which sets the image variables")
	ctx, cancel = context.WithCancel(context.Background())
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(webappv1.AddToScheme(scheme)).To(Succeed())
	Expect(v1beta1.AddToScheme(scheme)).To(Succeed())
	Expect(apiextensionsv1.AddToScheme(scheme)).To(Succeed())
	Expect(operatorsv1alpha1.AddToScheme(scheme)).To(Succeed())
	Expect(operatorsv1.AddToScheme(scheme)).To(Succeed())
	cfg, err := config.GetConfig()
	Expect(err).NotTo(HaveOccurred())
	k8s, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
})

// OLM v0 never deletes a CRD. The last install's CRD keeps its conversion webhook wired, by OLM's
// field managers, to a Service in a namespace this suite deleted: v1alpha1 reads fail, and the plain
// manifests' server-side apply (make deploy, test-e2e's next step) conflicts with those managers. So the
// suite leaves the cluster without it, as it found it.
var _ = AfterSuite(func() {
	if k8s != nil {
		deleteWebAppsCRD()
	}
	if cancel != nil {
		cancel()
	}
})

// deleteWebAppsCRD deletes the WebApp CRD, and with it every WebApp, and waits until it is gone.
func deleteWebAppsCRD() {
	GinkgoHelper()
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(crdGVK)
	crd.SetName(webappsCRD)
	Expect(client.IgnoreNotFound(k8s.Delete(ctx, crd))).To(Succeed())
	Eventually(func() bool { return gone(crd) }).Should(BeTrue())
}

// newNamespace creates a namespace for one spec and waits for its default ServiceAccount. A restricted
// one enforces the restricted Pod Security level, as OpenShift and hardened clusters do: the operator,
// the WebApps' pods and OLM's own pods for the install (catalog, bundle unpacking, scorecard) must all
// meet it.
func newNamespace(prefix string, restricted bool) string {
	ns := prefix + "-" + rand.String(5)
	labels := map[string]string{"pod-security.kubernetes.io/warn": "restricted"}
	if restricted {
		labels["pod-security.kubernetes.io/enforce"] = "restricted"
	}
	Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: labels}})).To(Succeed())
	Eventually(func() error {
		return k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "default"}, &corev1.ServiceAccount{})
	}).Should(Succeed())
	DeferCleanup(func() {
		if os.Getenv("OLM_KEEP_NAMESPACES") == "" {
			_ = k8s.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		}
	})
	return ns
}

// run executes a command, streams its output into the spec's log and returns it.
func run(name string, args ...string) (string, error) {
	_, _ = fmt.Fprintf(GinkgoWriter, "\n$ %s %s\n", name, strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, name, args...)
	out, err := cmd.CombinedOutput()
	_, _ = GinkgoWriter.Write(out)
	return string(out), err
}

// dumpOnFailure prints what explains an OLM failure: the OLM objects of the namespace, its pods and
// events, and the logs of OLM's operators.
func dumpOnFailure(namespaces ...string) {
	DeferCleanup(func() {
		if !CurrentSpecReport().Failed() {
			return
		}
		dump := func(args ...string) { _, _ = run(kubectl, args...) }
		for _, ns := range namespaces {
			dump("-n", ns, "get", "csv,subscriptions,installplans,catalogsources,operatorgroups,deploy,pods,webapps,jobs",
				"-o", "wide")
			dump("-n", ns, "get", "events", "--sort-by=.lastTimestamp")
			dump("-n", ns, "get", "csv,subscriptions,installplans,catalogsources", "-o", "yaml")
			dump("-n", ns, "logs", "-l", "control-plane=controller-manager", "--tail=100", "--prefix")
		}
		dump("-n", "olm", "get", "pods", "-o", "wide")
		dump("-n", "olm", "logs", "deploy/catalog-operator", "--tail=80")
		dump("-n", "olm", "logs", "deploy/olm-operator", "--tail=80")
	})
}
