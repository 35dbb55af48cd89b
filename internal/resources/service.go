package resources

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// The Service exposes the WebApp's pods. The operator creates and patches it (never updates or
// deletes it: the garbage collector removes it with its owner).
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create;patch

// Service is ready as soon as it exists: a ClusterIP is assigned on creation.
var Service Child = kind[*corev1.Service, *corev1ac.ServiceApplyConfiguration]{
	name:    "Service",
	newObj:  func() *corev1.Service { return &corev1.Service{} },
	render:  renderService,
	extract: corev1ac.ExtractService,
	slim:    slimService,
}

// slimService is what the cache keeps of a Service: its identity. Nothing reads more of it.
func slimService(s *corev1.Service) *corev1.Service {
	return &corev1.Service{TypeMeta: s.TypeMeta, ObjectMeta: identity(&s.ObjectMeta)}
}

// renderService renders the Service that exposes app's pods: one port for each entry of
// exposure.service.ports, each to the container port of its name.
func renderService(app *v1beta1.WebApp) (*corev1ac.ServiceApplyConfiguration, error) {
	spec := corev1ac.ServiceSpec().
		WithType(serviceType(app)).
		WithSelector(SelectorLabels(app))
	for i := range app.Spec.Exposure.Service.Ports {
		sp := &app.Spec.Exposure.Service.Ports[i]
		port := corev1ac.ServicePort().
			WithName(sp.Name).
			WithProtocol(containerProtocol(app, sp.Name)).
			WithPort(servicePortNumber(sp)).
			WithTargetPort(intstr.FromString(sp.Name))
		// a NodePort or LoadBalancer Service gets a node port assigned for each port it names none for
		if serviceType(app) != corev1.ServiceTypeClusterIP && sp.NodePort != nil {
			port.WithNodePort(*sp.NodePort)
		}
		spec.WithPorts(port)
	}
	// The metrics port, when no entry names it: the ServiceMonitor selects Service ports by name, so
	// the Service exposes it too, under its container port's number (admission makes sure that
	// number is free on the Service).
	if _, expose, err := MetricsPort(app); err == nil && expose != nil {
		spec.WithPorts(corev1ac.ServicePort().
			WithName(expose.Name).
			WithProtocol(protocol(expose.Protocol)).
			WithPort(expose.ContainerPort).
			WithTargetPort(intstr.FromString(expose.Name)))
	}
	return corev1ac.Service(app.Name, app.Namespace).
		WithLabels(objectLabels(app)).
		WithOwnerReferences(ownerReference(app)).
		WithSpec(spec), nil
}

// URL is the in-cluster address of app's Service.
func URL(app *v1beta1.WebApp) string {
	return fmt.Sprintf("http://%s.%s.svc:%d", app.Name, app.Namespace, servicePort(app))
}

// The defaults below repeat the CRD's OpenAPI defaults, so that a WebApp that never went through the
// API server (a unit test, an object built in code) renders the same objects.

// servicePort is the number of the Service's main port, http.
func servicePort(app *v1beta1.WebApp) int32 {
	if sp := servicePortOf(app, PortName); sp != nil {
		return servicePortNumber(sp)
	}
	return 80
}

// servicePortNumber is sp's number; the main port's is 80 by default.
func servicePortNumber(sp *v1beta1.ServicePort) int32 {
	if sp.Name == PortName && sp.Port == 0 {
		return 80
	}
	return sp.Port
}

// servicePortOf is the exposure.service.ports entry of the container port name, or nil.
func servicePortOf(app *v1beta1.WebApp, name string) *v1beta1.ServicePort {
	for i := range app.Spec.Exposure.Service.Ports {
		if app.Spec.Exposure.Service.Ports[i].Name == name {
			return &app.Spec.Exposure.Service.Ports[i]
		}
	}
	return nil
}

// containerProtocol is the protocol of the container port name.
func containerProtocol(app *v1beta1.WebApp, name string) corev1.Protocol {
	if p := findPort(app, name); p != nil {
		return protocol(p.Protocol)
	}
	return corev1.ProtocolTCP
}

func serviceType(app *v1beta1.WebApp) corev1.ServiceType {
	if app.Spec.Exposure.Service.Type == "" {
		return corev1.ServiceTypeClusterIP
	}
	return corev1.ServiceType(app.Spec.Exposure.Service.Type)
}
