package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/webapp-operator/webapp-operator/internal/operator"
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
	kcmArgs = []string{
		"--controllers=deployment,replicaset,garbagecollector", "--leader-elect=false", "--secure-port=0",
		"--use-service-account-credentials=false", "--kube-api-qps=1000", "--kube-api-burst=2000",
		"--concurrent-deployment-syncs=20", "--concurrent-replicaset-syncs=20", "--concurrent-gc-syncs=50",
	}
	fakeNodes = 4
)

// cluster is the loopback control plane: kube-apiserver and etcd (envtest), kube-controller-manager,
// kube-scheduler and kwok with fake nodes.
type cluster struct {
	env        *envtest.Environment
	cfg        *rest.Config
	kubeconfig string
	children   []*child
}

func startCluster(ctx context.Context, assets, kwokBin, repo, dir string) (_ *cluster, err error) {
	c := &cluster{env: &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(repo, "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: assets,
	}}
	api := c.env.ControlPlane.GetAPIServer()
	for k, v := range apiserverArgs {
		api.Configure().Set(k, v)
	}
	etcd := &envtest.Etcd{}
	c.env.ControlPlane.Etcd = etcd
	etcd.DataDir = filepath.Join(dir, "etcd")
	for k, v := range etcdArgs {
		etcd.Configure().Set(k, v)
	}
	if err := os.MkdirAll(etcd.DataDir, 0o700); err != nil {
		return nil, err
	}
	step("starting kube-apiserver and etcd")
	if c.cfg, err = c.env.Start(); err != nil {
		return nil, fmt.Errorf("starting the control plane: %w", err)
	}
	defer func() {
		if err != nil {
			c.stop()
		}
	}()
	admin, err := c.env.AddUser(envtest.User{Name: "bench-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, err
	}
	kc, err := admin.KubeConfig()
	if err != nil {
		return nil, err
	}
	c.kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(c.kubeconfig, kc, 0o600); err != nil {
		return nil, err
	}

	step("starting kube-controller-manager, kube-scheduler and kwok")
	if err := c.spawn("kube-controller-manager", dir, filepath.Join(assets, "kube-controller-manager"),
		append([]string{"--kubeconfig=" + c.kubeconfig}, kcmArgs...)...); err != nil {
		return nil, err
	}
	schedConfig := filepath.Join(dir, "scheduler.yaml")
	if err := os.WriteFile(schedConfig, []byte(fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %s
  qps: 1000
  burst: 2000
leaderElection:
  leaderElect: false
`, c.kubeconfig)), 0o600); err != nil {
		return nil, err
	}
	if err := c.spawn("kube-scheduler", dir, filepath.Join(assets, "kube-scheduler"),
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
	if err := c.spawn("kwok", dir, kwokBin, "--kubeconfig="+c.kubeconfig, "--config="+kwokConfig,
		"--manage-all-nodes", "--cidr=10.128.0.0/12", "--node-lease-duration-seconds=40"); err != nil {
		return nil, err
	}
	if err := c.addNodes(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *cluster) spawn(name, dir, bin string, args ...string) error {
	ch, err := startChild(name, filepath.Join(dir, name+".log"), nil, bin, args...)
	if err != nil {
		return err
	}
	c.children = append(c.children, ch)
	return nil
}

// addNodes creates the fake nodes kwok plays and waits until they are Ready. kwok gives each
// 1M pods of capacity, so placement is never what limits the benchmark.
func (c *cluster) addNodes(ctx context.Context) error {
	cl, err := client.New(c.cfg, client.Options{Scheme: operator.Scheme})
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
		if err := c.check(); err != nil {
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

// check fails when a component of the cluster died.
func (c *cluster) check() error {
	for _, ch := range c.children {
		if gone, err := ch.exited(); gone {
			return err
		}
	}
	return nil
}

func (c *cluster) stop() {
	for i := len(c.children) - 1; i >= 0; i-- {
		c.children[i].stop()
	}
	_ = c.env.Stop()
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}
