package resources

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

func TestServiceMonitor(t *testing.T) {
	port := func(p intstr.IntOrString) *intstr.IntOrString { return &p }
	extra := []webappv1.ContainerPort{
		{Name: "metrics", ContainerPort: 9090},
		{Name: "admin", ContainerPort: 9091, ServicePort: ptr.To[int32](8091)},
	}
	endpoint := func(port, path string, more ...string) []any {
		ep := map[string]any{"port": port, "path": path}
		for i := 0; i+1 < len(more); i += 2 {
			ep[more[i]] = more[i+1]
		}
		return []any{ep}
	}
	httpPort := corev1.ServicePort{Name: PortName, Protocol: corev1.ProtocolTCP, Port: 80, TargetPort: intstr.FromString(PortName)}
	adminPort := corev1.ServicePort{Name: "admin", Protocol: corev1.ProtocolTCP, Port: 8091, TargetPort: intstr.FromString("admin")}
	metricsPort := corev1.ServicePort{Name: "metrics", Protocol: corev1.ProtocolTCP, Port: 9090,
		TargetPort: intstr.FromString("metrics")}
	tests := []struct {
		name          string
		metrics       *webappv1.Metrics
		wantEndpoints []any
		// the Service's ports: the metrics port is added when the Service does not expose it yet
		wantPorts []corev1.ServicePort
	}{
		{name: "not asked for: no ServiceMonitor, and the Service as without metrics",
			wantPorts: []corev1.ServicePort{httpPort, adminPort}},
		{name: "defaults: the main port, /metrics, Prometheus' own interval", metrics: &webappv1.Metrics{},
			wantEndpoints: endpoint("http", "/metrics"), wantPorts: []corev1.ServicePort{httpPort, adminPort}},
		{name: "the main port by its number (spec.port), a path and an interval",
			metrics:       &webappv1.Metrics{Port: port(intstr.FromInt32(8080)), Path: "/stats/prometheus", Interval: "15s"},
			wantEndpoints: endpoint("http", "/stats/prometheus", "interval", "15s"),
			wantPorts:     []corev1.ServicePort{httpPort, adminPort}},
		{name: "a port of spec.ports with a servicePort: the Service has it already",
			metrics:       &webappv1.Metrics{Port: port(intstr.FromString("admin"))},
			wantEndpoints: endpoint("admin", "/metrics"), wantPorts: []corev1.ServicePort{httpPort, adminPort}},
		{name: "a port of spec.ports without one, by name: the Service exposes it under its number",
			metrics:       &webappv1.Metrics{Port: port(intstr.FromString("metrics"))},
			wantEndpoints: endpoint("metrics", "/metrics"), wantPorts: []corev1.ServicePort{httpPort, adminPort, metricsPort}},
		{name: "the same port by its number",
			metrics:       &webappv1.Metrics{Port: port(intstr.FromInt32(9090))},
			wantEndpoints: endpoint("metrics", "/metrics"), wantPorts: []corev1.ServicePort{httpPort, adminPort, metricsPort}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := newApp(func(a *webappv1.WebApp) { a.Spec.Ports = extra; a.Spec.Metrics = tt.metrics })
			expect(t, "Service ports", service(t, app).Spec.Ports, tt.wantPorts)
			ac := mustRender(t, ServiceMonitor, app)
			if tt.metrics == nil {
				if ac != nil {
					t.Fatalf("a ServiceMonitor was rendered: %v", ac)
				}
				return
			}
			u := &unstructured.Unstructured{Object: content(t, ac)}
			expect(t, "kind", u.GroupVersionKind(), ServiceMonitorGVK)
			expect(t, "name", u.GetNamespace()+"/"+u.GetName(), "team-a/shop")
			expect(t, "labels", u.GetLabels(), objectLabels(hub(t, app)))
			expect(t, "controller", metav1.IsControlledBy(u, app), true)
			expect(t, "endpoints", u.Object["spec"].(map[string]any)["endpoints"], any(tt.wantEndpoints))
			// it selects the WebApp's Service, by the labels that Service carries, and no other WebApp's
			sel := &metav1.LabelSelector{}
			if err := convert(u.Object["spec"].(map[string]any)["selector"], sel); err != nil {
				t.Fatal(err)
			}
			checkSelects(t, "ServiceMonitor", sel, service(t, app).Labels)
			other := service(t, newApp(func(a *webappv1.WebApp) { a.Name = "other" })).Labels
			if s, _ := metav1.LabelSelectorAsSelector(sel); s.Matches(labels.Set(other)) {
				t.Errorf("the ServiceMonitor also selects another WebApp's Service (%v)", other)
			}
		})
	}
}

func TestServiceMonitorRefusesAPortThatNamesNothing(t *testing.T) {
	app := newApp(func(a *webappv1.WebApp) {
		p := intstr.FromString("nowhere")
		a.Spec.Metrics = &webappv1.Metrics{Port: &p}
	})
	_, err := ServiceMonitor.Desired(hub(t, app))
	expect(t, "error", err.Error(), "spec.observability.metrics.port nowhere is neither http (containerPort 8080) nor another port of spec.container.ports")
	// the Service renders as without metrics: the WebApp is reported InvalidSpec by the ServiceMonitor
	expect(t, "Service ports", len(service(t, app).Spec.Ports), 1)
}

func TestServiceMonitorMissingAPI(t *testing.T) {
	p := ServiceMonitor.MissingAPI()
	expect(t, "reason", p.Reason, status.ReasonMonitoringAPIMissing)
	expect(t, "message", p.Message, "the Prometheus Operator's API (monitoring.coreos.com/v1 ServiceMonitor), which "+
		"spec.observability.metrics needs, is not installed: install its CRDs, then restart the operator, which looks for them only "+
		"when it starts")
}
