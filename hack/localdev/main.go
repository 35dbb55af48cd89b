// Command localdev is the quickstart: it starts a local Kubernetes control plane (the kube-apiserver
// and etcd that `make envtest-assets` builds from source, plus kube-controller-manager when built),
// installs the WebApp CRD, runs the operator in-process and creates the sample WebApp, then prints
// how the WebApp's status evolves until interrupted.
//
// There is no node and no scheduler, so pods are created but never run: the WebApp honestly stays
// Ready=False (ReplicasUnavailable). The real local cluster (hack/local-cluster) runs them.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/operator"
)

func main() {
	var (
		stateDir  = flag.String("state-dir", ".cache/localdev", "where the kubeconfig and logs go")
		sample    = flag.String("sample", "config/samples/apps_v1alpha1_webapp.yaml", "the WebApp to create")
		namespace = flag.String("namespace", "default", "namespace of the sample WebApp")
		once      = flag.Bool("once", false,
			"exit 0 once the sample converged as far as it can without a node (for CI); default: run until interrupted")
		verbose = flag.Bool("v", false, "log the operator's output")
	)
	flag.Parse()
	if *verbose {
		ctrl.SetLogger(zap.New(zap.UseDevMode(true)))
	} else {
		ctrl.SetLogger(zap.New(zap.WriteTo(io.Discard)))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *stateDir, *sample, *namespace, *once); err != nil {
		fmt.Fprintln(os.Stderr, "localdev:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, stateDir, samplePath, namespace string, once bool) error {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		return errors.New("KUBEBUILDER_ASSETS is not set: run `make run-local`, which builds the control plane")
	}
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return err
	}
	step("starting kube-apiserver and etcd from %s", assets)
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: assets,
	}
	cfg, err := env.Start()
	if err != nil {
		return fmt.Errorf("starting the control plane: %w", err)
	}
	defer func() {
		step("stopping the control plane")
		_ = env.Stop()
	}()

	admin, err := env.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return err
	}
	kubeconfig, err := admin.KubeConfig()
	if err != nil {
		return err
	}
	kubeconfigPath, _ := filepath.Abs(filepath.Join(stateDir, "kubeconfig"))
	if err := os.WriteFile(kubeconfigPath, kubeconfig, 0o600); err != nil {
		return err
	}

	// Without a node the furthest a rollout can get is pods created but unavailable; without
	// kube-controller-manager, not even that.
	settled := "ReplicasUnavailable"
	if kcm := filepath.Join(assets, "kube-controller-manager"); fileExists(kcm) {
		step("starting kube-controller-manager (deployment and replicaset controllers)")
		stopKCM, err := startControllerManager(kcm, kubeconfigPath, filepath.Join(stateDir, "kube-controller-manager.log"))
		if err != nil {
			return err
		}
		defer stopKCM()
	} else {
		step("no kube-controller-manager in %s: Deployments will not get ReplicaSets", assets)
		settled = "RolloutInProgress"
	}

	step("starting the operator")
	mgr, err := operator.NewManager(cfg, operator.Options{
		MaxConcurrentReconciles: 2,
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
	})
	if err != nil {
		return err
	}
	mgrErr := make(chan error, 1)
	mgrCtx, cancelMgr := context.WithCancel(ctx)
	defer cancelMgr()
	go func() { mgrErr <- mgr.Start(mgrCtx) }()

	c, err := client.New(cfg, client.Options{Scheme: operator.Scheme})
	if err != nil {
		return err
	}
	app, err := readWebApp(samplePath)
	if err != nil {
		return err
	}
	app.Namespace = namespace
	step("creating WebApp %s/%s from %s", namespace, app.Name, samplePath)
	if err := c.Create(ctx, app); err != nil {
		return fmt.Errorf("creating the sample: %w", err)
	}

	fmt.Printf("\nThe control plane is up. In another shell:\n\n  export KUBECONFIG=%s\n"+
		"  %s get webapps,deployments,services\n\n", kubeconfigPath, filepath.Join(assets, "kubectl"))
	if !once {
		settled = "" // run until interrupted
	}
	return watchStatus(ctx, c, client.ObjectKeyFromObject(app), settled, mgrErr)
}

// watchStatus prints one line each time the sample's status changes. It returns when the Ready
// reason becomes settled, or never when settled is empty.
func watchStatus(ctx context.Context, c client.Client, key client.ObjectKey, settled string,
	mgrErr <-chan error) error {
	var last string
	err := wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		select {
		case err := <-mgrErr:
			return false, fmt.Errorf("the operator stopped: %w", err)
		default:
		}
		app := &webappv1.WebApp{}
		if err := c.Get(ctx, key, app); err != nil {
			return false, nil
		}
		ready := meta.FindStatusCondition(app.Status.Conditions, webappv1.ConditionReady)
		if ready == nil || app.Status.ObservedGeneration != app.Generation {
			return false, nil
		}
		line := fmt.Sprintf("WebApp %s: Ready=%s reason=%s replicas=%d ready=%d url=%s\n  %s",
			key.Name, ready.Status, ready.Reason, app.Status.Replicas, app.Status.ReadyReplicas, app.Status.URL, ready.Message)
		if line != last {
			fmt.Printf("[%s] %s\n", time.Now().Format("15:04:05"), line)
			last = line
		}
		return settled != "" && ready.Reason == settled, nil
	})
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

func startControllerManager(bin, kubeconfig, logPath string) (func(), error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--kubeconfig", kubeconfig, "--controllers=deployment,replicaset",
		"--leader-elect=false", "--secure-port=0", "--use-service-account-credentials=false")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting kube-controller-manager: %w", err)
	}
	return func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		_ = logFile.Close()
	}, nil
}

func readWebApp(path string) (*webappv1.WebApp, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	app := &webappv1.WebApp{}
	if err := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096).Decode(app); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", path, err)
	}
	return app, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func step(format string, args ...any) {
	fmt.Printf("==> "+format+"\n", args...)
}
