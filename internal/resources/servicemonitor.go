package resources

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// The ServiceMonitor has the Prometheus Operator scrape the app's own metrics
// (spec.observability.metrics). The operator creates, patches and deletes it like the HTTPRoute,
// and, like it, handles it as an unstructured object: github.com/prometheus-operator/prometheus-operator's
// Go types would bring a module and its dependencies into the operator's build for five fields, of a
// CRD a cluster may not have anyway.
//
// A ServiceMonitor rather than a PodMonitor: every WebApp has a Service, with named ports, and a
// ServiceMonitor that selects it is the Prometheus Operator's usual way of scraping an app. The
// Prometheus Operator gives the series the Service's name as their job, which stays the same across
// rollouts and replicas (a PodMonitor's series carry the PodMonitor's name instead, and nothing ties
// them to the Service the app is reached through). A PodMonitor would only be needed for a port the
// Service cannot expose, and spec.observability.metrics has the Service expose the port it names.
// +kubebuilder:rbac:groups=monitoring.coreos.com,resources=servicemonitors,verbs=get;list;watch;create;patch;delete

// ServiceMonitorGVK is the Prometheus Operator kind the operator writes: v1, the only version it serves.
var ServiceMonitorGVK = schema.GroupVersionKind{Group: monitoringGroup, Version: "v1", Kind: "ServiceMonitor"}

const monitoringGroup = "monitoring.coreos.com"

// ServiceMonitor is ready as soon as it exists: the Prometheus Operator writes no status on it that
// says whether a Prometheus picked it up.
var ServiceMonitor Child = crdKind(ServiceMonitorGVK, "the Prometheus Operator's API", "spec.observability.metrics",
	status.ReasonMonitoringAPIMissing, kind[*unstructured.Unstructured, runtime.ApplyConfiguration]{
		wanted: func(app *v1beta1.WebApp) bool { return app.Spec.Observability.Metrics != nil },
		render: renderServiceMonitor,
	})

// renderServiceMonitor renders the ServiceMonitor of app's metrics: one endpoint, the Service port
// that serves them, selecting app's Service by its labels in its own namespace (the ServiceMonitor's
// default). The endpoints list is atomic in the CRD, so our field manager owns it whole; the CRD
// defaults nothing inside the fields rendered here (its defaults are under relabelings and the TLS
// and authentication settings, which are left out), so what is sent is what is stored, and a pass
// over an unchanged WebApp compares equal and writes nothing.
func renderServiceMonitor(app *v1beta1.WebApp) (runtime.ApplyConfiguration, error) {
	port, _, err := MetricsPort(app)
	if err != nil {
		return nil, err
	}
	m := app.Spec.Observability.Metrics
	endpoint := map[string]any{"port": port, "path": metricsPath(m)}
	if m.Interval != "" {
		endpoint["interval"] = m.Interval
	}
	selector := map[string]any{}
	for k, v := range objectLabels(app) {
		selector[k] = v
	}
	u := newUnstructured(ServiceMonitorGVK)
	u.SetName(app.Name)
	u.SetNamespace(app.Namespace)
	u.SetLabels(objectLabels(app))
	ref := ownerReference(app)
	u.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: *ref.APIVersion, Kind: *ref.Kind, Name: *ref.Name,
		UID: *ref.UID, Controller: ref.Controller, BlockOwnerDeletion: ref.BlockOwnerDeletion}})
	u.Object["spec"] = map[string]any{
		"selector":  map[string]any{"matchLabels": selector},
		"endpoints": []any{endpoint},
	}
	return client.ApplyConfigurationFromUnstructured(u), nil
}

func metricsPath(m *v1beta1.Metrics) string {
	if m.Path == "" {
		return "/metrics"
	}
	return m.Path
}

// MetricsPort resolves app's observability.metrics.port to the name of the Service port that serves
// the metrics, and returns the container port the Service must expose for it (one that no
// exposure.service.ports entry names), or nil when the Service exposes it already: the main port
// (http) or a port with an entry. A port that names none of the container's is an error (admission
// refuses it).
func MetricsPort(app *v1beta1.WebApp) (string, *v1beta1.ContainerPort, error) {
	m := app.Spec.Observability.Metrics
	if m == nil {
		return "", nil, nil
	}
	port := intstr.FromString(PortName)
	if m.Port != nil {
		port = *m.Port
	}
	if port.Type == intstr.String && port.StrVal == PortName || port.Type == intstr.Int && port.IntVal == containerPort(app) {
		return PortName, nil, nil
	}
	ports, main := app.Spec.Container.Ports, findPort(app, PortName)
	for i := range ports {
		p := &ports[i]
		if p == main {
			continue // its name and number do not match: see above
		}
		if port.Type == intstr.String && p.Name == port.StrVal || port.Type == intstr.Int && p.ContainerPort == port.IntVal {
			if servicePortOf(app, p.Name) != nil {
				return p.Name, nil, nil
			}
			return p.Name, p, nil
		}
	}
	return "", nil, fmt.Errorf("spec.observability.metrics.port %s is neither %s (containerPort %d) nor another "+
		"port of spec.container.ports",
		port.String(), PortName, containerPort(app))
}
