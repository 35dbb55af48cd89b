package resources

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
)

func service(t *testing.T, app *webappv1.WebApp) *corev1.Service {
	t.Helper()
	ac, err := renderService(hub(t, app))
	if err != nil {
		t.Fatalf("Service: %v", err)
	}
	return typed[corev1.Service](t, ac)
}

func TestService(t *testing.T) {
	tests := []struct {
		name         string
		svc          webappv1.ServiceSpec
		wantType     corev1.ServiceType
		wantPort     int32
		wantNodePort int32
		wantURL      string
	}{
		{name: "defaults", wantType: corev1.ServiceTypeClusterIP, wantPort: 80, wantURL: "http://shop.team-a.svc:80"},
		{name: "custom port", svc: webappv1.ServiceSpec{Port: 8000}, wantType: corev1.ServiceTypeClusterIP, wantPort: 8000, wantURL: "http://shop.team-a.svc:8000"},
		{name: "node port pinned", svc: webappv1.ServiceSpec{Type: webappv1.ServiceTypeNodePort, Port: 80, NodePort: ptr.To[int32](30080)},
			wantType: corev1.ServiceTypeNodePort, wantPort: 80, wantNodePort: 30080, wantURL: "http://shop.team-a.svc:80"},
		{name: "load balancer, node port chosen by Kubernetes", svc: webappv1.ServiceSpec{Type: webappv1.ServiceTypeLoadBalancer},
			wantType: corev1.ServiceTypeLoadBalancer, wantPort: 80, wantURL: "http://shop.team-a.svc:80"},
		{name: "node port ignored for ClusterIP (admission refuses it anyway)", svc: webappv1.ServiceSpec{Type: webappv1.ServiceTypeClusterIP, NodePort: ptr.To[int32](30080)},
			wantType: corev1.ServiceTypeClusterIP, wantPort: 80, wantURL: "http://shop.team-a.svc:80"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := newApp(func(a *webappv1.WebApp) { a.Spec.Service = tt.svc })
			s := service(t, app)
			expect(t, "type", s.Spec.Type, tt.wantType)
			expect(t, "selector", s.Spec.Selector, SelectorLabels(hub(t, app)))
			expect(t, "ports", s.Spec.Ports, []corev1.ServicePort{{Name: PortName, Protocol: corev1.ProtocolTCP,
				Port: tt.wantPort, TargetPort: intstr.FromString(PortName), NodePort: tt.wantNodePort}})
			expect(t, "labels", s.Labels[LabelManagedBy], ManagedBy)
			expect(t, "controller", metav1.IsControlledBy(s, app), true)
			expect(t, "url", URL(hub(t, app)), tt.wantURL)
		})
	}
}

func TestServiceExposesTheExtraPortsThatAskForIt(t *testing.T) {
	s := service(t, newApp(func(a *webappv1.WebApp) {
		a.Spec.Ports = []webappv1.ContainerPort{
			{Name: "metrics", ContainerPort: 9090, ServicePort: ptr.To[int32](9090)},
			{Name: "admin", ContainerPort: 9091},
			{Name: "dns", ContainerPort: 5353, Protocol: "UDP", ServicePort: ptr.To[int32](53)},
		}
	}))
	expect(t, "ports", s.Spec.Ports, []corev1.ServicePort{
		{Name: PortName, Protocol: corev1.ProtocolTCP, Port: 80, TargetPort: intstr.FromString(PortName)},
		{Name: "metrics", Protocol: corev1.ProtocolTCP, Port: 9090, TargetPort: intstr.FromString("metrics")},
		{Name: "dns", Protocol: corev1.ProtocolUDP, Port: 53, TargetPort: intstr.FromString("dns")},
	})
}
