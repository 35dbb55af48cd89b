package framework

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/webapp-operator/webapp-operator/internal/testenv"
)

// ControlPlaneOptions configure StartControlPlane.
type ControlPlaneOptions struct {
	// Assets holds kube-apiserver, etcd and, when KubeControllerManager is set,
	// kube-controller-manager (make envtest-assets; KUBEBUILDER_ASSETS).
	Assets string
	// CRDDir holds the CRDs to install (config/crd/bases).
	CRDDir string
	// Dir receives the admin kubeconfig, the logs and, when EtcdOnDisk is set, etcd's data.
	Dir string
	// APIServerArgs and EtcdArgs are flags added to envtest's own (name without dashes: value).
	APIServerArgs, EtcdArgs map[string]string
	// EtcdOnDisk keeps etcd's data under Dir instead of a temporary folder.
	EtcdOnDisk bool
	// KubeControllerManager, when not nil, starts kube-controller-manager with these flags (plus
	// the kubeconfig), so that Deployments get ReplicaSets and pods, and owners their garbage collection.
	KubeControllerManager []string
}

// ControllersForDeployments are kube-controller-manager flags that run what a Deployment needs, on a
// control plane without nodes or service accounts, and the aggregation of ClusterRoles into the
// built-in admin, edit and view.
var ControllersForDeployments = []string{
	"--controllers=deployment,replicaset,garbagecollector,clusterrole-aggregation",
	"--leader-elect=false", "--secure-port=0", "--use-service-account-credentials=false",
}

// ControlPlane is a loopback Kubernetes control plane: envtest's kube-apiserver and etcd, an admin
// kubeconfig for other processes, and the child processes started next to it.
type ControlPlane struct {
	Env *envtest.Environment
	// Config is the admin's REST config; Kubeconfig the same as a file.
	Config     *rest.Config
	Kubeconfig string
	dir        string
	procs      []*Process
	// stopWebhook stops the conversion webhook.
	stopWebhook func()
}

// StartControlPlane starts kube-apiserver and etcd with the CRDs installed, writes an admin
// kubeconfig (system:masters) and, if asked, starts kube-controller-manager.
func StartControlPlane(o ControlPlaneOptions) (_ *ControlPlane, err error) {
	if o.Assets == "" {
		return nil, fmt.Errorf("no control plane binaries: set KUBEBUILDER_ASSETS (make envtest-assets prints it)")
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	// The WebApp CRD converts between its versions through a webhook, which this process serves
	// (testenv.ServeConversion) as the operator would.
	c := &ControlPlane{dir: o.Dir, Env: &envtest.Environment{
		CRDDirectoryPaths:     []string{o.CRDDir},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: o.Assets,
		Scheme:                testenv.Scheme,
		WebhookInstallOptions: testenv.ConversionWebhookOptions(),
	}}
	api := c.Env.ControlPlane.GetAPIServer()
	for k, v := range o.APIServerArgs {
		api.Configure().Set(k, v)
	}
	etcd := &envtest.Etcd{}
	c.Env.ControlPlane.Etcd = etcd
	for k, v := range o.EtcdArgs {
		etcd.Configure().Set(k, v)
	}
	if o.EtcdOnDisk {
		etcd.DataDir = filepath.Join(o.Dir, "etcd")
		if err := os.MkdirAll(etcd.DataDir, 0o700); err != nil {
			return nil, err
		}
	}
	if c.Config, err = c.Env.Start(); err != nil {
		return nil, fmt.Errorf("starting kube-apiserver and etcd: %w", err)
	}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()
	if c.stopWebhook, err = testenv.ServeConversion(c.Env.WebhookInstallOptions); err != nil {
		return nil, err
	}
	admin, err := c.Env.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, err
	}
	kubeconfig, err := admin.KubeConfig()
	if err != nil {
		return nil, err
	}
	if c.Kubeconfig, err = filepath.Abs(filepath.Join(o.Dir, "kubeconfig")); err != nil {
		return nil, err
	}
	if err := os.WriteFile(c.Kubeconfig, kubeconfig, 0o600); err != nil {
		return nil, err
	}
	if o.KubeControllerManager != nil {
		args := append([]string{"--kubeconfig=" + c.Kubeconfig}, o.KubeControllerManager...)
		kcm := filepath.Join(o.Assets, "kube-controller-manager")
		if err := c.Spawn("kube-controller-manager", kcm, args...); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Spawn starts a process next to the control plane, logging to Dir/NAME.log; Stop stops it.
func (c *ControlPlane) Spawn(name, bin string, args ...string) error {
	p, err := StartProcess(name, filepath.Join(c.dir, name+".log"), nil, bin, args...)
	if err != nil {
		return err
	}
	c.procs = append(c.procs, p)
	return nil
}

// Check fails when a spawned process died.
func (c *ControlPlane) Check() error {
	for _, p := range c.procs {
		if gone, err := p.Exited(); gone {
			return err
		}
	}
	return nil
}

// Stop stops the spawned processes, last first, then the API server and etcd.
func (c *ControlPlane) Stop() {
	for i := len(c.procs) - 1; i >= 0; i-- {
		c.procs[i].Stop()
	}
	c.procs = nil
	_ = c.Env.Stop()
	if c.stopWebhook != nil {
		c.stopWebhook()
	}
}

// FaultsAPIServerArgs returns the API server flags of test/faults. Watches are served from etcd (no
// watch cache), so that compacting etcd's history (test/faults does) expires them: a client that then
// resumes a watch gets 410 Gone and must list again. Every request for WebApps is written to
// dir/audit.log (at the Metadata level), so a test can see who listed and watched what, and when.
func FaultsAPIServerArgs(dir string) (map[string]string, error) {
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(`apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  resources: [{group: apps.webapp-operator.io, resources: [webapps]}]
- level: None
`), 0o600); err != nil {
		return nil, err
	}
	return map[string]string{"watch-cache": "false",
		"audit-policy-file": policy, "audit-log-path": filepath.Join(dir, "audit.log")}, nil
}
