// Command localdev is the quickstart: it starts a local Kubernetes control plane (the kube-apiserver
// and etcd that `make envtest-assets` builds from source, plus kube-controller-manager when built),
// installs the WebApp CRD, runs the operator in-process and creates the sample WebApp, then prints
// how the WebApp's status evolves until interrupted.
//
// There is no node and no scheduler, so pods are created but never run: the WebApp honestly stays
// Ready=False (ReplicasUnavailable). The real local cluster (hack/local-cluster) runs them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/operator"
	"github.com/webapp-operator/webapp-operator/test/framework"
)

func main() {
	var (
		stateDir  = flag.String("state-dir", ".cache/localdev", "where the kubeconfig and logs go")
		sample    = flag.String("sample", "config/samples/apps_v1beta1_webapp.yaml", "the WebApp to create")
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
	// Without a node the furthest a rollout can get is pods created but unavailable; without
	// kube-controller-manager, not even that.
	opts := framework.ControlPlaneOptions{Assets: assets, CRDDir: filepath.Join("config", "crd", "bases"), Dir: stateDir}
	settled := "ReplicasUnavailable"
	if fileExists(filepath.Join(assets, "kube-controller-manager")) {
		opts.KubeControllerManager = framework.ControllersForDeployments
		framework.Step("starting kube-apiserver, etcd and kube-controller-manager from %s", assets)
	} else {
		framework.Step("starting kube-apiserver and etcd from %s "+
			"(no kube-controller-manager: Deployments will not get ReplicaSets)", assets)
		settled = "RolloutInProgress"
	}
	cp, err := framework.StartControlPlane(opts)
	if err != nil {
		return err
	}
	defer func() {
		framework.Step("stopping the control plane")
		cp.Stop()
	}()
	cfg, kubeconfigPath := cp.Config, cp.Kubeconfig

	framework.Step("starting the operator")
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
	app, err := framework.ReadWebApp(samplePath)
	if err != nil {
		return err
	}
	app.Namespace = namespace
	framework.Step("creating WebApp %s/%s from %s", namespace, app.Name, samplePath)
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
		app := &v1beta1.WebApp{}
		if err := c.Get(ctx, key, app); err != nil {
			return false, nil
		}
		ready := meta.FindStatusCondition(app.Status.Conditions, v1beta1.ConditionReady)
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

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
