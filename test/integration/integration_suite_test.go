// Package integration runs the operator's binary, as a process with its production flags, against a
// loopback control plane that includes kube-controller-manager: the Deployment and ReplicaSet
// controllers really create ReplicaSets and pods, and admission really refuses them. There is no
// kubelet: pods are created but never run (scheduling_test.go adds kube-scheduler and Node objects to
// see where the scheduler places them). The operator runs as a user that holds exactly the
// permissions the bundle's CSV grants its ServiceAccount, with leader election on (rbac_test.go), so
// every spec also proves that those permissions are enough.
//
// `make test` runs it (it needs KUBEBUILDER_ASSETS with kube-controller-manager and kube-scheduler;
// make envtest-assets builds them).
package integration

import (
	"context"
	"fmt"
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
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/served"
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
	theOperator *framework.OperatorProcess
	// what startOperator runs
	operatorBin, operatorKubeconfig, operatorDir string
)

func TestIntegration(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Integration suite (operator binary, kube-controller-manager)")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	ctx, cancel = context.WithCancel(context.Background())
	operatorDir = GinkgoT().TempDir()
	cp, k8s, operatorBin = framework.StartIntegrationCluster(operatorDir, nil)
	operatorKubeconfig = asOperatorServiceAccount(operatorDir)
	theOperator = startOperator("operator")
})

// startOperator runs the operator's binary as the user of the CSV's permissions, with leader
// election on and args added.
func startOperator(name string, args ...string) *framework.OperatorProcess {
	GinkgoHelper()
	p, err := framework.StartOperator(operatorBin, operatorKubeconfig, operatorDir, name, nil,
		append([]string{"--leader-elect", "--leader-elect-namespace=" + operatorNamespace}, args...)...)
	Expect(err).NotTo(HaveOccurred())
	return p
}

var _ = ReportAfterEach(func(report SpecReport) {
	if report.Failed() && theOperator != nil {
		_, _ = fmt.Fprintf(GinkgoWriter, "\n----- operator log\n%s", theOperator.Log())
	}
})

var _ = AfterSuite(func() {
	theOperator.Stop()
	if cp != nil {
		cp.Stop()
	}
	if cancel != nil {
		cancel()
	}
})

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

// hub is app in the form the operator reads it (served.ToHub), for the renderer's functions.
func hub(app *webappv1.WebApp) *v1beta1.WebApp {
	GinkgoHelper()
	h, err := served.ToHub(app)
	Expect(err).NotTo(HaveOccurred())
	return h
}
