package controller_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

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
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		testEnv.BinaryAssetsDirectory = envtestAssets()
	}
	cfg, err := testEnv.Start()
	Expect(err).NotTo(HaveOccurred(), "start the envtest control plane (run `make test`, which builds it)")

	k8sClient, err = client.New(cfg, client.Options{Scheme: operator.Scheme})
	Expect(err).NotTo(HaveOccurred())

	// The manager gets its own config whose transport counts every request it sends, so tests
	// can prove that a pass over an up-to-date WebApp writes nothing.
	mgrCfg := rest.CopyConfig(cfg)
	mgrCfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return requests.wrap(rt) })
	mgr, err := operator.NewManager(mgrCfg, operator.Options{
		MaxConcurrentReconciles: 2,
		ConflictRecheck:         time.Second,
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
	})
	Expect(err).NotTo(HaveOccurred())
	go func() {
		defer GinkgoRecover()
		Expect(mgr.Start(ctx)).To(Succeed())
	}()
})

var _ = AfterSuite(func() {
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

// requestCounter counts the manager's API requests that change state.
type requestCounter struct {
	mu     sync.Mutex
	writes []string
}

func (c *requestCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		switch req.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			c.mu.Lock()
			c.writes = append(c.writes, req.Method+" "+req.URL.Path)
			c.mu.Unlock()
		}
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
