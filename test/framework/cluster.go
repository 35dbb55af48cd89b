package framework

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2" //nolint:staticcheck // the suites' shared setup reports through Ginkgo
	. "github.com/onsi/gomega"    //nolint:staticcheck // likewise
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/webapp-operator/webapp-operator/internal/operator"
)

// StartIntegrationCluster builds the operator into dir and starts a loopback control plane with
// kube-controller-manager (KUBEBUILDER_ASSETS: make envtest-assets), its etcd on disk in dir, for the
// suites that run the operator's binary (test/integration, test/faults). It returns the control
// plane, an admin client and the operator's binary.
func StartIntegrationCluster(dir string, apiserverArgs map[string]string) (*ControlPlane, client.Client, string) {
	GinkgoHelper()
	By("building the operator")
	manager, err := BuildOperator(dir)
	Expect(err).NotTo(HaveOccurred())
	By("starting kube-apiserver, etcd and kube-controller-manager")
	cp, err := StartControlPlane(ControlPlaneOptions{
		Assets: os.Getenv("KUBEBUILDER_ASSETS"), CRDDir: filepath.Join("..", "..", "config", "crd", "bases"),
		Dir: dir, EtcdOnDisk: true, KubeControllerManager: ControllersForDeployments, APIServerArgs: apiserverArgs,
	})
	Expect(err).NotTo(HaveOccurred(), "make envtest-assets builds the control plane with kube-controller-manager")
	c, err := client.New(cp.Config, client.Options{Scheme: operator.Scheme})
	Expect(err).NotTo(HaveOccurred())
	return cp, c, manager
}
