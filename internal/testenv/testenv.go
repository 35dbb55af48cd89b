// Package testenv starts the control plane that the operator's envtest suites share (api/v1alpha1,
// internal/operator, internal/controller): envtest's kube-apiserver and etcd with the WebApp CRD and,
// when asked, the optional APIs' CRDs, and the WebApp conversion webhook the CRD calls. Only tests
// import it.
package testenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/yaml"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/webhook"
)

// Scheme is the tests' own: Kubernetes' kinds, both WebApp versions, and the CRD itself, which some
// tests edit.
var Scheme = runtime.NewScheme()

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(Scheme))
	utilruntime.Must(webappv1.AddToScheme(Scheme))
	utilruntime.Must(v1beta1.AddToScheme(Scheme))
	utilruntime.Must(apiextensionsv1.AddToScheme(Scheme))
}

// Env is a running control plane and an admin client of it.
type Env struct {
	*envtest.Environment
	Client client.Client
	// stopWebhook stops the conversion webhook Start serves (nil: none).
	stopWebhook context.CancelFunc
}

// Stop stops the conversion webhook, then the control plane.
func (e *Env) Stop() error {
	if e.stopWebhook != nil {
		e.stopWebhook()
	}
	return e.Environment.Stop()
}

// Start starts kube-apiserver and etcd with the CRDs of config/crd/bases and, with optionalAPIs,
// the Gateway API's (for the HTTPRoute child) and the Prometheus Operator's (for the ServiceMonitor
// children). make test sets KUBEBUILDER_ASSETS, GATEWAY_API_CRDS and PROMETHEUS_OPERATOR_CRDS; a run
// from an IDE takes the newest of each cached under ~/.cache/webapp-operator.
func Start(optionalAPIs bool) (*Env, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	dirs := []string{filepath.Join(root, "config", "crd", "bases")}
	if optionalAPIs {
		for _, c := range []struct{ env, cache, target string }{
			{"GATEWAY_API_CRDS", "gateway-api", "gateway-api-crds"},
			{"PROMETHEUS_OPERATOR_CRDS", "prometheus-operator", "prometheus-operator-crds"},
		} {
			dir := os.Getenv(c.env)
			if dir == "" {
				dir = newestCached(c.cache, "*", "crds")
			}
			if dir == "" {
				return nil, fmt.Errorf("no %s: run `make %s` (make test does)", c.env, c.target)
			}
			dirs = append(dirs, dir)
		}
	}
	// With a scheme in which the WebApp converts, envtest points the CRD's conversion at its local
	// webhook address, with its own CA; ServeConversion serves it there.
	env, err := start(&envtest.Environment{CRDDirectoryPaths: dirs, ErrorIfCRDPathMissing: true, Scheme: Scheme,
		WebhookInstallOptions: ConversionWebhookOptions()})
	if err != nil {
		return nil, err
	}
	if env.stopWebhook, err = ServeConversion(env.WebhookInstallOptions); err != nil {
		return nil, errors.Join(err, env.Environment.Stop())
	}
	return env, nil
}

// ConversionWebhookOptions have envtest, with Scheme as the Environment's scheme, point the WebApp
// CRD's conversion at a local address with a CA of its own, instead of dropping it: ServeConversion
// then serves it there.
func ConversionWebhookOptions() envtest.WebhookInstallOptions {
	return envtest.WebhookInstallOptions{LocalServingHost: "127.0.0.1"}
}

// ServeConversion serves the WebApp conversion where envtest pointed the CRD, with the operator's
// conversion functions as its webhook serves them, until the returned function is called.
func ServeConversion(o envtest.WebhookInstallOptions) (context.CancelFunc, error) {
	server := crwebhook.NewServer(crwebhook.Options{Host: o.LocalServingHost, Port: o.LocalServingPort,
		CertDir: o.LocalServingCertDir})
	server.Register(webhook.Path, webhook.ConversionHandler(Scheme))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = server.Start(ctx) }()
	// the first request that needs a conversion may come at once
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		req, _ := http.NewRequest(http.MethodGet, "/", nil)
		if server.StartedChecker()(req) == nil {
			return cancel, nil
		}
		if time.Now().After(deadline) {
			cancel()
			return nil, errors.New("the conversion webhook did not start within 10s")
		}
	}
}

// StartWithCRD starts kube-apiserver and etcd with a copy of the WebApp CRD of config/crd/bases that
// edit has changed (the file itself is left alone), for tests that need the CRD in another form:
// the conversion tests serve every version.
func StartWithCRD(edit func(*apiextensionsv1.CustomResourceDefinition)) (*Env, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(root, "config", "crd", "bases", "apps.webapp-operator.io_webapps.yaml"))
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(raw, crd); err != nil {
		return nil, err
	}
	edit(crd)
	return start(&envtest.Environment{CRDs: []*apiextensionsv1.CustomResourceDefinition{crd}})
}

func start(env *envtest.Environment) (*Env, error) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		env.BinaryAssetsDirectory = newestCached("envtest", "k8s", "*")
	}
	// make test starts a control plane per package, several at once on a small machine: envtest's
	// 20 s for kube-apiserver to become ready ran out on two busy cores in all five tries.
	if os.Getenv("KUBEBUILDER_CONTROLPLANE_START_TIMEOUT") == "" && env.ControlPlaneStartTimeout == 0 {
		env.ControlPlaneStartTimeout = 2 * time.Minute
	}
	cfg, err := env.Start()
	if err != nil {
		return nil, fmt.Errorf("start the envtest control plane (run `make test`, which builds it): %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: Scheme})
	if err != nil {
		return nil, errors.Join(err, env.Stop())
	}
	return &Env{Environment: env, Client: c}, nil
}

// newestCached is the last match of ~/.cache/webapp-operator/<pattern>, or "" when none matches.
func newestCached(pattern ...string) string {
	home, _ := os.UserHomeDir()
	matches, _ := filepath.Glob(filepath.Join(append([]string{home, ".cache", "webapp-operator"}, pattern...)...))
	if len(matches) == 0 {
		return ""
	}
	return matches[len(matches)-1]
}

// moduleRoot is the nearest folder above the working directory (a test's package) with a go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	for ; err == nil; dir = filepath.Dir(dir) {
		if _, statErr := os.Stat(filepath.Join(dir, "go.mod")); statErr == nil {
			return dir, nil
		}
		if dir == filepath.Dir(dir) {
			return "", errors.New("no go.mod above the working directory")
		}
	}
	return "", err
}

// FreePort returns a loopback TCP port that is free now.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}
