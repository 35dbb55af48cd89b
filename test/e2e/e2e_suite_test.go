// Package e2e runs the operator as a real pod on a real node (hack/local-cluster.sh) and checks what a
// user sees: pods running, Ready conditions, a Service that answers HTTP, scaling, rolling updates,
// failed rollouts, garbage collection and an operator restart in the middle of a rollout.
//
// It is not part of `make test`. Run it with:
//
//	make cluster-up test-e2e      # test-e2e builds the images, loads them and deploys the operator
//
// Environment: KUBECONFIG (the local cluster's), KUBECTL (used to dump logs and events on failure),
// DEMO_IMG (localhost/demoapp; tags v1, v2 and uid101 must be loaded), LOCAL_CLUSTER_NETNS (webapp-lc: the
// node's network namespace, from which Services are called), E2E_TIMEOUT (how long to wait for each
// expectation, 2m).
package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/config"

	"github.com/webapp-operator/webapp-operator/internal/operator"
	"github.com/webapp-operator/webapp-operator/test/framework"
)

const (
	operatorNamespace  = "webapp-operator-system"
	operatorDeployment = "webapp-operator-controller-manager"
)

var (
	ctx       context.Context
	cancel    context.CancelFunc
	k8s       client.Client
	namespace string
	kubectl   = framework.EnvOr("KUBECTL", "kubectl")
	demoImage = framework.EnvOr("DEMO_IMG", "localhost/demoapp")
	// nodeHTTP reaches ClusterIPs from the node's network namespace
	nodeHTTP = framework.NodeHTTPClient()
)

// get returns the status code and body of GET url, called from the node.
func get(url string) (int, string, error) { return framework.Get(nodeHTTP, url) }

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	// E2E_TIMEOUT=20s, for instance, shows a failure and its diagnostics quickly
	SetDefaultEventuallyTimeout(framework.DurationEnv("E2E_TIMEOUT", 2*time.Minute))
	SetDefaultEventuallyPollingInterval(500 * time.Millisecond)
	RunSpecs(t, "e2e suite (local cluster)")
}

var _ = BeforeSuite(func() {
	ctx, cancel = context.WithCancel(context.Background())
	cfg, err := config.GetConfig()
	Expect(err).NotTo(HaveOccurred(), "KUBECONFIG must point at the local cluster (hack/local-cluster.sh env)")
	k8s, err = client.New(cfg, client.Options{Scheme: operator.Scheme})
	Expect(err).NotTo(HaveOccurred())
	_, err = os.Stat(framework.NodeNetns)
	Expect(err).NotTo(HaveOccurred(), "the node's network namespace; is the local cluster up?")

	namespace = "e2e-" + rand.String(5)
	Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}})).To(Succeed())
	// pods need the namespace's default ServiceAccount, which kube-controller-manager creates
	Eventually(func() error {
		return k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "default"}, &corev1.ServiceAccount{})
	}).Should(Succeed())
})

var _ = AfterSuite(func() {
	if k8s != nil && namespace != "" && os.Getenv("E2E_KEEP_NAMESPACE") == "" {
		_ = k8s.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}})
	}
	cancel()
})

// On failure, print what one needs to understand it: the operator's logs (also those of a previous,
// killed container), the events and the objects of the test namespace.
var _ = ReportAfterEach(func(report SpecReport) {
	if !report.Failed() {
		return
	}
	dump := func(args ...string) {
		out, err := exec.Command(kubectl, args...).CombinedOutput()
		_, _ = fmt.Fprintf(GinkgoWriter, "\n----- kubectl %v (err: %v)\n%s", args, err, out)
	}
	dump("-n", operatorNamespace, "logs", "-l", "control-plane=controller-manager", "--tail=200", "--prefix")
	dump("-n", operatorNamespace, "logs", "-l", "control-plane=controller-manager", "--tail=50", "--previous", "--prefix")
	dump("-n", operatorNamespace, "get", "pods", "-o", "wide")
	if namespace != "" {
		dump("-n", namespace, "get", "webapps,deployments,replicasets,pods,services,endpointslices", "-o", "wide")
		dump("-n", namespace, "get", "webapps", "-o", "yaml")
		dump("-n", namespace, "get", "events", "--sort-by=.lastTimestamp")
	}
})
