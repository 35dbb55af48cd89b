package controller_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/operator"
	"github.com/webapp-operator/webapp-operator/internal/served"
	"github.com/webapp-operator/webapp-operator/internal/testenv"
	"github.com/webapp-operator/webapp-operator/internal/testenv/specs"
)

// These tests run the real manager (the one cmd/main.go builds) against a real kube-apiserver and
// etcd. There is no kube-controller-manager: the tests play the Deployment controller by writing
// Deployment status, and there is no garbage collector.

var (
	ctx       context.Context
	cancel    context.CancelFunc
	testEnv   *testenv.Env
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
	var err error
	// the optional APIs' CRDs too, for the HTTPRoute and ServiceMonitor children (route_test.go,
	// servicemonitor_test.go); internal/operator runs an operator on a control plane without them
	testEnv, err = testenv.Start(true)
	Expect(err).NotTo(HaveOccurred())
	k8sClient = testEnv.Client
	startManager()
})

var (
	mgrCfg      *rest.Config
	metricsAddr string
	stopManager func()
)

// startManager starts the manager that cmd/main.go builds. It gets its own config whose transport
// counts every request it sends, so tests can prove that a pass over an up-to-date WebApp writes nothing.
func startManager() {
	GinkgoHelper()
	if mgrCfg == nil {
		mgrCfg = rest.CopyConfig(testEnv.Config)
		mgrCfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return requests.wrap(rt) })
		// plain HTTP: what the endpoint serves is the point here (cmd/main.go adds HTTPS, authn and authz)
		port, err := testenv.FreePort()
		Expect(err).NotTo(HaveOccurred())
		metricsAddr = fmt.Sprintf("127.0.0.1:%d", port)
	}
	mgr, err := operator.NewManager(mgrCfg, operator.Options{
		MaxConcurrentReconciles: 2,
		// long enough for the no-hot-loop window, short enough for the recovery specs
		TerminalRecheck:        8 * time.Second,
		Metrics:                metricsserver.Options{BindAddress: metricsAddr},
		HealthProbeBindAddress: "0",
		// restartManager starts a second manager with the same controller in this process
		SkipControllerNameValidation: true,
		// the suite runs as an administrator: the config specs read Secrets
		SecretRollouts:  true,
		ConfigKeySecret: types.NamespacedName{Namespace: metav1.NamespaceDefault, Name: operator.ConfigKeySecret},
	})
	Expect(err).NotTo(HaveOccurred())
	stopManager = specs.RunManager(ctx, mgr, timeout)
}

// restartManager stops the manager and starts a new one, as a restarted operator pod would: a new
// cache, listed from scratch.
func restartManager() {
	GinkgoHelper()
	stopManager()
	startManager()
}

var _ = AfterSuite(func() {
	stopManager()
	cancel()
	Expect(testEnv.Stop()).To(Succeed())
})

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

// hub is app, as the tests read it from the API server, in the form the operator reads it
// (served.ToHub).
func hub(app *webappv1.WebApp) *v1beta1.WebApp {
	GinkgoHelper()
	h, err := served.ToHub(app)
	Expect(err).NotTo(HaveOccurred())
	return h
}
