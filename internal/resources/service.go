package resources

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
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
}

// renderService renders the Service that exposes app's pods.
func renderService(app *webappv1.WebApp) (*corev1ac.ServiceApplyConfiguration, error) {
	port := corev1ac.ServicePort().
		WithName(PortName).
		WithProtocol(corev1.ProtocolTCP).
		WithPort(servicePort(app)).
		WithTargetPort(intstr.FromString(PortName))
	if svcType := serviceType(app); svcType != corev1.ServiceTypeClusterIP && app.Spec.Service.NodePort != nil {
		port.WithNodePort(*app.Spec.Service.NodePort)
	}
	spec := corev1ac.ServiceSpec().
		WithType(serviceType(app)).
		WithSelector(SelectorLabels(app)).
		WithPorts(port)
	// Extra container ports that ask for it, under their own name; a NodePort or LoadBalancer
	// Service gets a node port assigned for each.
	for _, p := range app.Spec.Ports {
		if p.ServicePort != nil {
			spec.WithPorts(corev1ac.ServicePort().
				WithName(p.Name).
				WithProtocol(protocol(p.Protocol)).
				WithPort(*p.ServicePort).
				WithTargetPort(intstr.FromString(p.Name)))
		}
	}
	// The metrics port, when it is one of spec.ports without a servicePort: the ServiceMonitor selects
	// Service ports by name, so the Service exposes it too, under its container port's number
	// (admission makes sure that number is free on the Service).
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
func URL(app *webappv1.WebApp) string {
	return fmt.Sprintf("http://%s.%s.svc:%d", app.Name, app.Namespace, servicePort(app))
}

// The defaults below repeat the CRD's OpenAPI defaults, so that a WebApp that never went through the
// API server (a unit test, an object built in code) renders the same objects.

func servicePort(app *webappv1.WebApp) int32 {
	if app.Spec.Service.Port == 0 {
		return 80
	}
	return app.Spec.Service.Port
}

func serviceType(app *webappv1.WebApp) corev1.ServiceType {
	if app.Spec.Service.Type == "" {
		return corev1.ServiceTypeClusterIP
	}
	return corev1.ServiceType(app.Spec.Service.Type)
}
