package controller_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/operator"
)

// These tests run the real manager (the one cmd/main.go builds) against a real kube-apiserver and
// etcd. There is no kube-controller-manager: the tests play the Deployment controller by writing
// Deployment status, and there is no garbage collector.

var (
	ctx       context.Context
	cancel    context.CancelFunc
	testEnv   *envtest.Environment
	k8sClient client.Client
	requests  = &requestCounter{}
)

func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Controller Suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	ctx, cancel = context.WithCancel(context.TODO())

	testEnv = &envtest.Environment{
		// the Gateway API's, for the HTTPRoute child (route_test.go), and the Prometheus Operator's
		// ServiceMonitor, for the ServiceMonitor child (servicemonitor_test.go);
		// internal/operator/missingapis_test.go runs an operator against a control plane without them
		CRDDirectoryPaths: []string{filepath.Join("..", "..", "config", "crd", "bases"), gatewayAPICRDs(),
			prometheusOperatorCRDs()},
		ErrorIfCRDPathMissing: true,
	}
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		testEnv.BinaryAssetsDirectory = envtestAssets()
	}
	cfg, err := testEnv.Start()
	Expect(err).NotTo(HaveOccurred(), "start the envtest control plane (run `make test`, which builds it)")

	// the tests also edit the CRD itself (containment_test.go)
	testScheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(testScheme)).To(Succeed())
	Expect(webappv1.AddToScheme(testScheme)).To(Succeed())
	Expect(apiextensionsv1.AddToScheme(testScheme)).To(Succeed())
	k8sClient, err = client.New(cfg, client.Options{Scheme: testScheme})
	Expect(err).NotTo(HaveOccurred())

	startManager()
})

// operatorNamespace is where the operator's own objects (its metrics Service) live in this suite.
const operatorNamespace = "webapp-operator-system"

var (
	mgrCfg      *rest.Config
	metricsAddr string
	stopManager context.CancelFunc
	mgrDone     chan struct{}
)

// startManager starts the manager that cmd/main.go builds. It gets its own config whose transport
// counts every request it sends, so tests can prove that a pass over an up-to-date WebApp writes nothing.
func startManager() {
	GinkgoHelper()
	if mgrCfg == nil {
		mgrCfg = rest.CopyConfig(testEnv.Config)
		mgrCfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return requests.wrap(rt) })
		// plain HTTP: what the endpoint serves is the point here (cmd/main.go adds HTTPS, authn and authz)
		metricsAddr = fmt.Sprintf("127.0.0.1:%d", freePort())
	}
	mgr, err := operator.NewManager(mgrCfg, operator.Options{
		MaxConcurrentReconciles: 2,
		// long enough for the no-hot-loop window, short enough for the recovery specs
		TerminalRecheck:        8 * time.Second,
		Metrics:                metricsserver.Options{BindAddress: metricsAddr},
		HealthProbeBindAddress: "0",
		// restartManager starts a second manager with the same controller in this process
		SkipControllerNameValidation: true,
		// absent until selfmonitor_test.go creates it
		MetricsService: types.NamespacedName{Namespace: operatorNamespace, Name: operator.DefaultMetricsService},
		// the suite runs as an administrator: the config specs read Secrets
		SecretRollouts:  true,
		ConfigKeySecret: types.NamespacedName{Namespace: metav1.NamespaceDefault, Name: operator.ConfigKeySecret},
	})
	Expect(err).NotTo(HaveOccurred())
	mgrCtx, cancel := context.WithCancel(ctx)
	stopManager, mgrDone = cancel, make(chan struct{})
	go func(done chan struct{}) {
		defer GinkgoRecover()
		defer close(done)
		Expect(mgr.Start(mgrCtx)).To(Succeed())
	}(mgrDone)
}

// restartManager stops the manager and starts a new one, as a restarted operator pod would: a new
// cache, listed from scratch.
func restartManager() {
	GinkgoHelper()
	stopManager()
	Eventually(mgrDone, timeout).Should(BeClosed())
	startManager()
}

var _ = AfterSuite(func() {
	stopManager()
	cancel()
	Expect(testEnv.Stop()).To(Succeed())
})

// envtestAssets finds the control plane that `make envtest-assets` builds, for runs from an IDE.
func envtestAssets() string {
	home, _ := os.UserHomeDir()
	matches, _ := filepath.Glob(filepath.Join(home, ".cache", "webapp-operator", "envtest", "k8s", "*"))
	if len(matches) == 0 {
		return ""
	}
	return matches[len(matches)-1]
}

// gatewayAPICRDs is the folder of the Gateway API CRDs that `make gateway-api-crds` fetches.
func gatewayAPICRDs() string {
	return cachedCRDs("GATEWAY_API_CRDS", "gateway-api", "no Gateway API CRDs: run `make gateway-api-crds` (make test does)")
}

// prometheusOperatorCRDs is the folder of the ServiceMonitor CRD that `make prometheus-operator-crds`
// fetches.
func prometheusOperatorCRDs() string {
	return cachedCRDs("PROMETHEUS_OPERATOR_CRDS", "prometheus-operator",
		"no ServiceMonitor CRD: run `make prometheus-operator-crds` (make test does)")
}

// cachedCRDs is the folder named by the variable env, as make test sets it, or else the newest
// release cached under ~/.cache/webapp-operator/<cache>/<version>/crds, for runs from an IDE; it
// fails the suite with missing when there is none.
func cachedCRDs(env, cache, missing string) string {
	if dir := os.Getenv(env); dir != "" {
		return dir
	}
	home, _ := os.UserHomeDir()
	matches, _ := filepath.Glob(filepath.Join(home, ".cache", "webapp-operator", cache, "*", "crds"))
	if len(matches) == 0 {
		Fail(missing)
	}
	return matches[len(matches)-1]
}

// requestCounter records the manager's API requests: those that change state, and the reads that
// are not watches (gets and lists).
type requestCounter struct {
	mu            sync.Mutex
	writes, reads []string
}

func (c *requestCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		c.mu.Lock()
		switch {
		case req.Method == http.MethodGet && req.URL.Query().Get("watch") != "true":
			c.reads = append(c.reads, req.Method+" "+req.URL.Path)
		case req.Method != http.MethodGet && req.Method != http.MethodHead && req.Method != http.MethodOptions:
			c.writes = append(c.writes, req.Method+" "+req.URL.Path)
		}
		c.mu.Unlock()
		return rt.RoundTrip(req)
	})
}

// Writes returns the writes sent so far.
func (c *requestCounter) Writes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.writes...)
}

// WritesIn returns the writes to objects of namespace ns. Every spec has a namespace of its own, and
// Events are sent asynchronously, sometimes after their spec ended: a count that is not scoped to
// the spec's namespace would count another spec's Events.
func (c *requestCounter) WritesIn(ns string) []string {
	var out []string
	for _, w := range c.Writes() {
		if strings.Contains(w, "/namespaces/"+ns+"/") {
			out = append(out, w)
		}
	}
	return out
}

// ReadsIn returns the gets and lists of objects of namespace ns.
func (c *requestCounter) ReadsIn(ns string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, r := range c.reads {
		if strings.Contains(r, "/namespaces/"+ns+"/") {
			out = append(out, r)
		}
	}
	return out
}

// settledWritesIn waits until no write to namespace ns has been sent for a second (the passes in
// flight and their asynchronous Events are done) and returns how many there were.
func settledWritesIn(ns string) int {
	GinkgoHelper()
	last := -1
	Eventually(func() bool {
		n := len(requests.WritesIn(ns))
		settled := n == last
		last = n
		return settled
	}, timeout, time.Second).Should(BeTrue(), "writes to %s never settled", ns)
	return last
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
