// Package integration runs the operator's binary, as a process with its production flags, against a
// loopback control plane that includes kube-controller-manager: the Deployment and ReplicaSet
// controllers really create ReplicaSets and pods, admission really refuses them, and the tests can
// freeze the API server or etcd. There is no node: pods are created but never run.
//
// `make test` runs it (it needs KUBEBUILDER_ASSETS with kube-controller-manager; make envtest-assets
// builds it).
package integration

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/operator"
	"github.com/webapp-operator/webapp-operator/test/framework"
)

const (
	timeout  = 30 * time.Second
	interval = 200 * time.Millisecond
)

var (
	ctx         context.Context
	cancel      context.CancelFunc
	cp          *framework.ControlPlane
	k8s         client.Client
	dir         string
	manager     string // the operator's binary
	theOperator *operatorProcess
)

func TestIntegration(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Integration suite (operator binary, kube-controller-manager)")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	ctx, cancel = context.WithCancel(context.Background())
	dir = GinkgoT().TempDir()

	By("building the operator")
	manager = filepath.Join(dir, "manager")
	build := exec.Command("go", "build", "-o", manager, "github.com/webapp-operator/webapp-operator/cmd")
	build.Stdout, build.Stderr = GinkgoWriter, GinkgoWriter
	Expect(build.Run()).To(Succeed())

	By("starting kube-apiserver, etcd and kube-controller-manager")
	var err error
	cp, err = framework.StartControlPlane(framework.ControlPlaneOptions{
		Assets: os.Getenv("KUBEBUILDER_ASSETS"), CRDDir: filepath.Join("..", "..", "config", "crd", "bases"),
		Dir: dir, EtcdOnDisk: true, KubeControllerManager: framework.ControllersForDeployments,
	})
	Expect(err).NotTo(HaveOccurred(), "make envtest-assets builds the control plane with kube-controller-manager")
	k8s, err = client.New(cp.Config, client.Options{Scheme: operator.Scheme})
	Expect(err).NotTo(HaveOccurred())

	theOperator = startOperator("operator")
})

var _ = AfterSuite(func() {
	if theOperator != nil {
		theOperator.Stop()
	}
	if cp != nil {
		cp.Stop()
	}
	if cancel != nil {
		cancel()
	}
})

// operatorProcess is the operator's binary, running with the flags config/manager gives it.
type operatorProcess struct {
	*framework.Process
	metricsPort, probePort int
}

func startOperator(name string, extraArgs ...string) *operatorProcess {
	GinkgoHelper()
	op := &operatorProcess{metricsPort: freePort(), probePort: freePort()}
	args := append([]string{
		"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(op.metricsPort), "--metrics-secure=false",
		"--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(op.probePort),
	}, extraArgs...)
	env := []string{"KUBECONFIG=" + cp.Kubeconfig}
	p, err := framework.StartProcess(name, filepath.Join(dir, name+".log"), env, manager, args...)
	Expect(err).NotTo(HaveOccurred())
	op.Process = p
	DeferCleanup(func() {
		if CurrentSpecReport().Failed() {
			log, _ := os.ReadFile(p.LogPath())
			_, _ = fmt.Fprintf(GinkgoWriter, "\n----- %s log\n%s", name, log)
		}
	})
	return op
}

func freePort() int {
	GinkgoHelper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}

// newNamespace creates a namespace with labels, for one spec.
func newNamespace(labels map[string]string) string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "it-" + rand.String(5), Labels: labels}}
	Expect(k8s.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

// readyCondition returns the WebApp's Ready condition once its status is current.
func readyCondition(ns, name string) func(g Gomega) *metav1.Condition {
	return func(g Gomega) *metav1.Condition {
		app := &webappv1.WebApp{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, app)).To(Succeed())
		g.Expect(app.Status.ObservedGeneration).To(Equal(app.Generation))
		c := meta.FindStatusCondition(app.Status.Conditions, webappv1.ConditionReady)
		g.Expect(c).NotTo(BeNil())
		return c
	}
}
