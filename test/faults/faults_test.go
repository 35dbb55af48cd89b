package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	clientv3 "go.etcd.io/etcd/client/v3"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/operator"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/test/framework"
)

const (
	timeout  = 30 * time.Second
	interval = 200 * time.Millisecond
)

var (
	ctx     context.Context
	cancel  context.CancelFunc
	cp      *framework.ControlPlane
	k8s     client.Client
	dir     string
	manager string
)

func TestFaults(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Fault suite (operator binary, kube-controller-manager, frozen API server and etcd)")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	ctx, cancel = context.WithCancel(context.Background())
	dir = GinkgoT().TempDir()
	args, err := framework.FaultsAPIServerArgs(dir)
	Expect(err).NotTo(HaveOccurred())
	cp, k8s, manager = framework.StartIntegrationCluster(dir, args)
})

var _ = AfterSuite(func() {
	if cp != nil {
		cp.Stop()
	}
	if cancel != nil {
		cancel()
	}
})

// newNamespace creates a namespace for one spec.
func newNamespace() string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "faults-" + rand.String(5)}}
	Expect(k8s.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

// Package faults breaks what the operator depends on (the API server, etcd, its network) while
// WebApps change, with the operator's binary running as a process with its production flags against
// a loopback control plane with kube-controller-manager. `make test-faults` runs it, and CI too.
//
// The operator's promise is "nothing lost, converges again by itself". These specs break what it
// depends on while WebApps change, and require every WebApp to converge on its latest spec
// afterwards, with no duplicate child and the operator process never restarted: with leader election
// on and its default timings, which ride out a 60 s outage. Each prints its recovery time.
var _ = Describe("Faults", Ordered, func() {
	const apps = 8
	var (
		ns      string
		faulty  *framework.OperatorProcess
		proxy   *framework.CutProxy
		changer *imageChanger
	)

	BeforeAll(func() {
		By("the operator, with leader election, reaching the API server through a proxy the tests can cut")
		var err error
		proxy, err = framework.StartCutProxy(apiserverAddr().Host)
		Expect(err).NotTo(HaveOccurred())
		kubeconfig := filepath.Join(dir, "kubeconfig-via-proxy")
		Expect(framework.KubeconfigVia(cp.Kubeconfig, proxy.Addr(), kubeconfig)).To(Succeed())
		faulty, err = framework.StartOperator(manager, kubeconfig, dir, "operator", nil,
			"--leader-elect", "--leader-elect-namespace=kube-system")
		Expect(err).NotTo(HaveOccurred())
		Eventually(func(g Gomega) {
			lease := &coordinationv1.Lease{}
			key := client.ObjectKey{Namespace: "kube-system", Name: operator.LeaderElectionID}
			g.Expect(k8s.Get(ctx, key, lease)).To(Succeed())
			g.Expect(ptr.Deref(lease.Spec.HolderIdentity, "")).NotTo(BeEmpty())
		}, timeout, interval).Should(Succeed(), "the operator leads")

		ns = newNamespace()
		changer = &imageChanger{ns: ns, latest: map[string]string{}}
		for i := range apps {
			name := fmt.Sprintf("app-%d", i)
			// no node runs pods here: zero replicas let a WebApp become Ready (ScaledToZero)
			Expect(k8s.Create(ctx, &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec: webappv1.WebAppSpec{Image: "example.com/app:v0", Replicas: ptr.To[int32](0)}})).To(Succeed())
			changer.latest[name] = "example.com/app:v0"
		}
		expectConverged(ns, changer.snapshot())
	})
	AfterAll(func() {
		faulty.Stop()
		_ = proxy.Close()
	})
	ReportAfterEach(func(report SpecReport) {
		if report.Failed() && faulty != nil {
			_, _ = fmt.Fprintf(GinkgoWriter, "\n----- operator log\n%s", faulty.Log())
		}
	})
	// Whatever a spec did, the operator process must be the one started above: never restarted.
	AfterEach(func() {
		gone, err := faulty.Exited()
		Expect(gone).To(BeFalse(), "the operator exited: %v", err)
	})

	It("converges after the API server is frozen for 60 s while WebApps change", func() {
		apiserver := pidOf("kube-apiserver", "--secure-port="+apiserverAddr().Port())
		changer.start()
		time.Sleep(2 * time.Second)
		freeze(apiserver, 60*time.Second)
		thawed := time.Now()
		time.Sleep(3 * time.Second) // changes after the outage too
		changer.stop()
		expectConverged(ns, changer.snapshot())
		By(fmt.Sprintf("RECOVERY api-server-frozen-60s: every WebApp converged on its latest spec %s after the API server "+
			"came back (changes went on for 3 s of that)", time.Since(thawed).Round(time.Millisecond)))
	})

	It("converges after etcd is frozen for 20 s while WebApps change", func() {
		etcd := pidOf("etcd", "--data-dir="+filepath.Join(dir, "etcd"))
		changer.start()
		time.Sleep(2 * time.Second)
		freeze(etcd, 20*time.Second)
		thawed := time.Now()
		time.Sleep(3 * time.Second)
		changer.stop()
		expectConverged(ns, changer.snapshot())
		By(fmt.Sprintf("RECOVERY etcd-frozen-20s: every WebApp converged on its latest spec %s after etcd came back "+
			"(changes went on for 3 s of that)", time.Since(thawed).Round(time.Millisecond)))
	})

	It("lists again when its watches expire (410 Gone), and converges", func() {
		By("cutting the operator off while WebApps change, then compacting etcd's history past its watches")
		proxy.Cut()
		changer.start()
		time.Sleep(10 * time.Second)
		changer.stop()
		compactEtcd()
		Expect(proxy.Restore()).To(Succeed())
		restored := time.Now()
		expectConverged(ns, changer.snapshot())
		By(fmt.Sprintf("RECOVERY watch-expired: every WebApp converged on its latest spec %s after the network came "+
			"back", time.Since(restored).Round(time.Millisecond)))
		// Its watches resume from resource versions that no longer exist: 410 Gone, after which it must
		// list every WebApp again (client-go's own message about it is at verbosity 4; the API
		// server's audit log shows the list).
		Expect(operatorListedWebAppsAfter(restored.Add(-time.Second))).To(BeTrue(),
			"the API server's audit log shows no list of WebApps by the operator after the network came back")
	})
})

// compactEtcd compacts etcd's history up to its current revision, as the API server does every few
// minutes: a watch from any earlier resource version then fails with 410 Gone.
func compactEtcd() {
	GinkgoHelper()
	etcd, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{cp.Env.ControlPlane.Etcd.URL.String()},
		DialTimeout: 5 * time.Second,
	})
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = etcd.Close() }()
	resp, err := etcd.Get(ctx, "compact-probe")
	Expect(err).NotTo(HaveOccurred())
	_, err = etcd.Compact(ctx, resp.Header.Revision, clientv3.WithCompactPhysical())
	Expect(err).NotTo(HaveOccurred())
	By(fmt.Sprintf("etcd compacted to revision %d", resp.Header.Revision))
}

// imageChanger changes the image of every WebApp of ns, one after another, every 200 ms, and
// remembers the last image each one was accepted with. Requests time out after 2 s, so it goes on
// through an outage; what fails during the outage is simply not remembered.
type imageChanger struct {
	ns      string
	mu      sync.Mutex
	latest  map[string]string
	version int
	cancel  context.CancelFunc
	done    chan struct{}
}

func (c *imageChanger) start() {
	cctx, cancel := context.WithCancel(ctx)
	c.cancel, c.done = cancel, make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(c.done)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			for name := range c.snapshot() {
				select {
				case <-cctx.Done():
					return
				case <-t.C:
				}
				c.mu.Lock()
				c.version++
				image := fmt.Sprintf("example.com/app:v%d", c.version)
				c.mu.Unlock()
				rctx, rcancel := context.WithTimeout(cctx, 2*time.Second)
				patch := client.RawPatch("application/merge-patch+json", fmt.Appendf(nil, `{"spec":{"image":%q}}`, image))
				err := k8s.Patch(rctx, &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: c.ns, Name: name}}, patch)
				rcancel()
				if err == nil {
					c.mu.Lock()
					c.latest[name] = image
					c.mu.Unlock()
				}
			}
		}
	}()
}

func (c *imageChanger) stop() {
	c.cancel()
	<-c.done
}

func (c *imageChanger) snapshot() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]string, len(c.latest))
	for k, v := range c.latest {
		out[k] = v
	}
	return out
}

// expectConverged waits until every WebApp runs the image its spec holds now (a change whose request
// timed out during an outage may still have been applied: the stored spec is the truth): its status
// is for its current generation and Ready, its Deployment (one) has that image, and it has exactly
// one Service. A Deployment behind its WebApp's spec would be a lost update.
func expectConverged(ns string, apps map[string]string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		for name := range apps {
			app := &webappv1.WebApp{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, app)).To(Succeed())
			g.Expect(app.Status.ObservedGeneration).To(Equal(app.Generation), "%s", name)
			ready := meta.FindStatusCondition(app.Status.Conditions, webappv1.ConditionReady)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), "%s: %s %s", name, ready.Reason, ready.Message)
			var deps appsv1.DeploymentList
			mine := []client.ListOption{client.InNamespace(ns), client.MatchingLabels{resources.LabelInstance: name}}
			g.Expect(k8s.List(ctx, &deps, mine...)).To(Succeed())
			g.Expect(deps.Items).To(HaveLen(1), "%s: one Deployment", name)
			g.Expect(deps.Items[0].Spec.Template.Spec.Containers[0].Image).
				To(Equal(app.Spec.Image), "%s: an update was lost", name)
			var svcs corev1.ServiceList
			g.Expect(k8s.List(ctx, &svcs, mine...)).To(Succeed())
			g.Expect(svcs.Items).To(HaveLen(1), "%s: one Service", name)
		}
	}, 3*time.Minute, time.Second).Should(Succeed())
	// every change acknowledged to the client is in the stored spec, or a later one is
	for name, acked := range apps {
		app := &webappv1.WebApp{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, app)).To(Succeed())
		Expect(imageVersion(app.Spec.Image)).To(BeNumerically(">=", imageVersion(acked)), "%s", name)
	}
}

func imageVersion(image string) int {
	var v int
	_, _ = fmt.Sscanf(image[strings.LastIndex(image, ":v")+2:], "%d", &v)
	return v
}

func apiserverAddr() *url.URL {
	GinkgoHelper()
	u, err := url.Parse(cp.Config.Host)
	Expect(err).NotTo(HaveOccurred())
	return u
}

func pidOf(binary, arg string) int {
	GinkgoHelper()
	pid, err := framework.FindPID(filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), binary), arg)
	Expect(err).NotTo(HaveOccurred())
	return pid
}

// freeze stops the process for d (SIGSTOP), then lets it go on (SIGCONT), even if the spec fails meanwhile.
func freeze(pid int, d time.Duration) {
	GinkgoHelper()
	Expect(syscall.Kill(pid, syscall.SIGSTOP)).To(Succeed())
	defer func() { _ = syscall.Kill(pid, syscall.SIGCONT) }()
	By(fmt.Sprintf("process %d frozen for %s", pid, d))
	time.Sleep(d)
}

// operatorListedWebAppsAfter reports whether the API server's audit log shows the operator (user agent
// "manager") listing WebApps, as a list or as a watch that starts with the list, after t.
func operatorListedWebAppsAfter(t time.Time) bool {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(dir, "audit.log"))
	Expect(err).NotTo(HaveOccurred())
	for _, line := range strings.Split(string(data), "\n") {
		var ev struct {
			Verb, RequestURI, UserAgent string
			RequestReceivedTimestamp    metav1.MicroTime
		}
		if json.Unmarshal([]byte(line), &ev) != nil || !strings.HasPrefix(ev.UserAgent, "manager/") ||
			!ev.RequestReceivedTimestamp.After(t) {
			continue
		}
		if ev.Verb == "list" || (ev.Verb == "watch" && strings.Contains(ev.RequestURI, "sendInitialEvents=true")) {
			return true
		}
	}
	return false
}
