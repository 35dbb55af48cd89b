package bundle_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// serviceMonitor is the part of prometheus-operator's ServiceMonitor that says what is scraped and how.
type serviceMonitor struct {
	Kind string `json:"kind"`
	Spec struct {
		Endpoints []struct {
			Port, Path, Scheme string
			BearerTokenFile    string `json:"bearerTokenFile"`
			HonorLabels        bool   `json:"honorLabels"`
		} `json:"endpoints"`
		Selector struct {
			MatchLabels map[string]string `json:"matchLabels"`
		} `json:"selector"`
	} `json:"spec"`
}

func loadYAML(t *testing.T, pattern string, into any) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(bundleDir, "manifests", pattern))
	if len(files) != 1 {
		t.Fatalf("want one bundle manifest %s, found %v", pattern, files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", files[0], err)
	}
}

// TestServiceMonitorScrapesTheSecureMetricsEndpoint checks that config/prometheus's ServiceMonitor
// selects the bundle's metrics Service, names its port, and scrapes it over HTTPS with a token (the
// endpoint's authn and authz) keeping the metrics' own labels, and that the operator serves HTTPS
// metrics on that port.
func TestServiceMonitorScrapesTheSecureMetricsEndpoint(t *testing.T) {
	var sm serviceMonitor
	data, err := os.ReadFile(filepath.Join("..", "..", "config", "prometheus", "monitor.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &sm); err != nil {
		t.Fatal(err)
	}
	var svc corev1.Service
	loadYAML(t, "*-metrics-service_v1_service.yaml", &svc)
	if sm.Kind != "ServiceMonitor" || len(sm.Spec.Endpoints) != 1 {
		t.Fatalf("want a ServiceMonitor with one endpoint, got %+v", sm)
	}
	for k, v := range sm.Spec.Selector.MatchLabels {
		if svc.Labels[k] != v {
			t.Errorf("the ServiceMonitor selects %s=%s, which the metrics Service %s does not carry", k, v, svc.Name)
		}
	}
	ep := sm.Spec.Endpoints[0]
	if ep.Scheme != "https" || ep.Path != "/metrics" || ep.BearerTokenFile == "" {
		t.Errorf("the ServiceMonitor must scrape /metrics over HTTPS with a bearer token: %+v", ep)
	}
	if !ep.HonorLabels {
		t.Error("without honorLabels, Prometheus overwrites the WebApp metrics' namespace label with the operator's")
	}
	i := slices.IndexFunc(svc.Spec.Ports, func(p corev1.ServicePort) bool { return p.Name == ep.Port })
	if i < 0 {
		t.Fatalf("the metrics Service has no port named %q", ep.Port)
	}
	target := svc.Spec.Ports[i].TargetPort.IntValue()

	deps := loadCSV(t).Spec.InstallStrategy.StrategySpec.DeploymentSpecs
	args := deps[0].Spec.Template.Spec.Containers[0].Args
	if !slices.Contains(args, "--metrics-bind-address=:"+strconv.Itoa(target)) {
		t.Errorf("the operator does not serve metrics on the Service's target port %d: %v", target, args)
	}
	for _, a := range args {
		if strings.HasPrefix(a, "--metrics-secure=") && a != "--metrics-secure=true" {
			t.Errorf("metrics are not served over HTTPS with authentication: %s", a)
		}
	}
}

// TestTheBundleHasNoMonitoringObjects: OLM v0 fails the whole InstallPlan when a bundle holds an
// object of a kind the cluster does not serve (measured with OLM_VERSION on the local cluster:
// "GroupVersionKind monitoring.coreos.com/v1, Kind=PrometheusRule not found on the cluster"). A
// ServiceMonitor or PrometheusRule in the bundle would make the operator uninstallable wherever
// prometheus-operator is not, so they ship in config/prometheus instead.
func TestTheBundleHasNoMonitoringObjects(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(bundleDir, "manifests", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var obj struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := yaml.Unmarshal(data, &obj); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if strings.HasPrefix(obj.APIVersion, "monitoring.coreos.com/") {
			t.Errorf("%s: a %s in the bundle fails every OLM install on a cluster without prometheus-operator",
				filepath.Base(f), obj.Kind)
		}
	}
}
