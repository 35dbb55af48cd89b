package resources_test

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/served"
)

// The WebApp's own labels and annotations, the conversion's carrier among them, stay on the WebApp:
// no child, and no pod, carries them. The pods' labels and annotations are the spec's (pod.labels,
// pod.annotations) and the operator's.
func TestChildrenCarryNoWebAppMetadata(t *testing.T) {
	alpha := &webappv1.WebApp{
		ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "team-a", UID: "uid-1",
			Labels:      map[string]string{"example.com/webapp-label": "x"},
			Annotations: map[string]string{"example.com/webapp-annotation": "y"}},
		Spec: webappv1.WebAppSpec{Image: "nginx", Replicas: ptr.To[int32](2),
			HealthCheck: &webappv1.HealthCheck{Path: "/healthz"},
			Ports:       []webappv1.ContainerPort{{Name: "metrics", ContainerPort: 9090, ServicePort: ptr.To[int32](9090)}},
			Ingress:     &webappv1.Ingress{Hosts: []string{"shop.example.com"}},
			Route:       &webappv1.Route{Hostnames: []string{"shop.example.com"}, ParentRefs: []webappv1.RouteParentRef{{Name: "gw"}}},
			Autoscaling: &webappv1.Autoscaling{MaxReplicas: 3}, NetworkPolicy: &webappv1.NetworkPolicy{},
			Metrics: &webappv1.Metrics{Port: ptr.To(intstr.FromString("metrics"))}},
	}
	app, err := served.ToHub(alpha)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := app.Annotations[webappv1.AlphaCarrierAnnotation]; !ok {
		t.Fatalf("the hub carries no %s to leak: %v", webappv1.AlphaCarrierAnnotation, app.Annotations)
	}
	spec, err := served.TemplateSpec(app)
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := resources.DesiredDeployment(resources.DeploymentInputs{App: app, TemplateSpec: spec})
	if err != nil {
		t.Fatal(err)
	}
	rendered := map[string]any{"Deployment": d}
	for _, child := range resources.Children {
		if rendered[child.Kind()], err = child.Desired(app); err != nil {
			t.Fatal(err)
		}
		if rendered[child.Kind()] == nil {
			t.Fatalf("the test renders no %s", child.Kind())
		}
	}
	for kind, obj := range rendered {
		b, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{webappv1.AlphaCarrierAnnotation, "example.com/webapp-label", "example.com/webapp-annotation"} {
			if strings.Contains(string(b), key) {
				t.Errorf("the %s carries the WebApp's %s: %s", kind, key, b)
			}
		}
	}
}
