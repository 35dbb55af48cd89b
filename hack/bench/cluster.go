package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/webapp-operator/webapp-operator/internal/operator"
	"github.com/webapp-operator/webapp-operator/test/framework"
)

// Scale settings of the control plane. Every client is the envtest admin (system:masters), which
// API Priority and Fairness exempts, so only the in-flight limits apply.
var (
	apiserverArgs = map[string]string{
		// envtest's /24 holds 254 Services; the unrelated-objects scenario needs tens of thousands.
		"service-cluster-ip-range": "10.96.0.0/16",
		// envtest turns ServiceAccount off; TaintNodesByCondition would taint the fake nodes
		// not-ready, and no node lifecycle controller runs to lift the taint.
		"disable-admission-plugins":      "ServiceAccount,TaintNodesByCondition",
		"max-requests-inflight":          "1000",
		"max-mutating-requests-inflight": "500",
	}
	etcdArgs = map[string]string{"quota-backend-bytes": strconv.Itoa(8 << 30)}
	// kube-controller-manager runs only what a Deployment needs, and the garbage collector that
	// deletes a WebApp's children; its client and workers are sized so it is not the bottleneck.
	kcmTuning = []string{
		// The autoscaler's and the disruption budget's controllers write the status of those children,
		// as in a real cluster, so that the steady state is measured with them at work. The flag adds to
		// framework.ControllersForDeployments' list. With no metrics API, every autoscaler reports that
		// it cannot read its metrics (ScalingActive False), and leaves the replicas alone.
		"--controllers=horizontalpodautoscaling,disruption",
		"--kube-api-qps=1000", "--kube-api-burst=2000",
		"--concurrent-deployment-syncs=20", "--concurrent-replicaset-syncs=20", "--concurrent-gc-syncs=50",
	}
	fakeNodes = 4
)

// cluster is the loopback control plane (framework.ControlPlane: kube-apiserver, etcd and
// kube-controller-manager) with kube-scheduler and kwok playing fake nodes.
type cluster struct {
	*framework.ControlPlane
	audit *auditLog
	// gatewayAPI: the Gateway API's CRDs are installed, so the operator serves HTTPRoutes.
	gatewayAPI bool
}

// startCluster starts the control plane; with gatewayCRDs (a folder of CRDs, `make gateway-api-crds`),
// it installs the Gateway API too, before the operator starts and looks for it.
func startCluster(ctx context.Context, assets, kwokBin, repo, gatewayCRDs, dir string) (_ *cluster, err error) {
	step("starting kube-apiserver, etcd and kube-controller-manager")
	args, auditPath, err := auditArgs(dir)
	if err != nil {
		return nil, err
	}
	for k, v := range apiserverArgs {
		args[k] = v
	}
	cp, err := framework.StartControlPlane(framework.ControlPlaneOptions{
		Assets: assets, CRDDir: filepath.Join(repo, "config", "crd", "bases"), Dir: dir,
		APIServerArgs: args, EtcdArgs: etcdArgs, EtcdOnDisk: true,
		KubeControllerManager: append(append([]string{}, framework.ControllersForDeployments...), kcmTuning...),
	})
	if err != nil {
		return nil, err
	}
	c := &cluster{ControlPlane: cp, audit: &auditLog{path: auditPath}, gatewayAPI: gatewayCRDs != ""}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()
	if c.gatewayAPI {
		step("installing the Gateway API CRDs from %s", gatewayCRDs)
		if _, err := envtest.InstallCRDs(c.Config, envtest.CRDInstallOptions{Paths: []string{gatewayCRDs},
			ErrorIfPathMissing: true}); err != nil {
			return nil, fmt.Errorf("installing the Gateway API CRDs: %w", err)
		}
	}
	step("starting kube-scheduler and kwok")
	schedConfig := filepath.Join(dir, "scheduler.yaml")
	if err := os.WriteFile(schedConfig, []byte(fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %s
  qps: 1000
  burst: 2000
leaderElection:
  leaderElect: false
`, c.Kubeconfig)), 0o600); err != nil {
		return nil, err
	}
	if err := c.Spawn("kube-scheduler", filepath.Join(assets, "kube-scheduler"),
		"--config="+schedConfig, "--secure-port=0"); err != nil {
		return nil, err
	}
	kwokConfig := filepath.Join(dir, "kwok.yaml")
	if err := os.WriteFile(kwokConfig, []byte(`apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  podPlayStageParallelism: 16
  nodeLeaseParallelism: 4
`), 0o600); err != nil {
		return nil, err
	}
	// The default stages (node-initialize, node heartbeat, pod-ready, pod-delete) are what we
	// want: a pod is Running and Ready as soon as it is bound, and deleted pods go away at once.
	if err := c.Spawn("kwok", kwokBin, "--kubeconfig="+c.Kubeconfig, "--config="+kwokConfig,
		"--manage-all-nodes", "--cidr=10.128.0.0/12", "--node-lease-duration-seconds=40"); err != nil {
		return nil, err
	}
	if err := c.addNodes(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// addNodes creates the fake nodes kwok plays and waits until they are Ready. kwok gives each
// 1M pods of capacity, so placement is never what limits the benchmark.
func (c *cluster) addNodes(ctx context.Context) error {
	cl, err := client.New(c.Config, client.Options{Scheme: operator.Scheme})
	if err != nil {
		return err
	}
	for i := range fakeNodes {
		name := fmt.Sprintf("kwok-node-%d", i)
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
			Labels: map[string]string{"type": "kwok", "kubernetes.io/hostname": name,
				"kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"},
		}}
		if err := cl.Create(ctx, node); err != nil {
			return fmt.Errorf("creating node %s: %w", name, err)
		}
	}
	step("waiting for %d kwok nodes to be Ready", fakeNodes)
	allReady := func(ctx context.Context) (bool, error) {
		if err := c.Check(); err != nil {
			return false, err
		}
		var nodes corev1.NodeList
		if err := cl.List(ctx, &nodes); err != nil {
			return false, nil
		}
		ready := 0
		for _, n := range nodes.Items {
			for _, cond := range n.Status.Conditions {
				if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
					ready++
				}
			}
		}
		return ready == fakeNodes, nil
	}
	return wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 2*time.Minute, true, allReady)
}
