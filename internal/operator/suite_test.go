package operator_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/webapp-operator/webapp-operator/internal/testenv"
)

// These specs run the manager that cmd/main.go builds against a real kube-apiserver and etcd, for
// what the operator process does besides reconciling WebApps: its probes and its own ServiceMonitor.
// Each spec starts a manager of its own, with the options it tests.

const (
	timeout  = 15 * time.Second
	interval = 100 * time.Millisecond
)

var (
	ctx       context.Context
	cancel    context.CancelFunc
	testEnv   *testenv.Env
	k8sClient client.Client
)

func TestOperator(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Operator Suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	ctx, cancel = context.WithCancel(context.TODO())
	var err error
	// the optional APIs' CRDs too: the operator's own ServiceMonitor needs the Prometheus Operator's
	testEnv, err = testenv.Start(true)
	Expect(err).NotTo(HaveOccurred())
	k8sClient = testEnv.Client
})

var _ = AfterSuite(func() {
	cancel()
	if testEnv != nil { // nil when BeforeSuite failed
		Expect(testEnv.Stop()).To(Succeed())
	}
})
