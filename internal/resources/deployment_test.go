package resources

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/served"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// The tests build their WebApps in v1alpha1 and render them as the operator does, converted to the
// hub (hub): each expectation is the one the renderer met when it read v1alpha1.

// hub is app as the renderer reads it (served.ToHub).
func hub(t testing.TB, app *webappv1.WebApp) *v1beta1.WebApp {
	t.Helper()
	h, err := served.ToHub(app)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// templateSpec is what the stamp fingerprints of app (served.TemplateSpec).
func templateSpec(t testing.TB, app *webappv1.WebApp) []byte {
	t.Helper()
	spec, err := served.TemplateSpec(hub(t, app))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// inputs are what app's Deployment is decided from, over live.
func inputs(t testing.TB, app *webappv1.WebApp, live *appsv1.Deployment, configRevision string) DeploymentInputs {
	t.Helper()
	return DeploymentInputs{App: hub(t, app), Live: live, ConfigRevision: configRevision, TemplateSpec: templateSpec(t, app)}
}

func newApp(mutate func(*webappv1.WebApp)) *webappv1.WebApp {
	app := &webappv1.WebApp{
		ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "team-a", UID: "uid-1", Generation: 1},
		Spec:       webappv1.WebAppSpec{Image: "example.com/shop:1.0"},
	}
	if mutate != nil {
		mutate(app)
	}
	return app
}

// typed decodes an apply configuration into its typed object, as the API server would read it.
func typed[T any](t *testing.T, ac any) *T {
	t.Helper()
	data, err := json.Marshal(ac)
	if err != nil {
		t.Fatal(err)
	}
	out := new(T)
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func deployment(t *testing.T, app *webappv1.WebApp) *appsv1.Deployment {
	t.Helper()
	ac, err := renderDeployment(hub(t, app))
	if err != nil {
		t.Fatalf("Deployment: %v", err)
	}
	return typed[appsv1.Deployment](t, ac)
}

func TestDeployment(t *testing.T) {
	wantSelector := map[string]string{LabelName: AppName, LabelInstance: "shop"}
	// every pod also carries managed-by (the operator caches only those), which the selector leaves out
	wantPodLabels := map[string]string{LabelName: AppName, LabelInstance: "shop", LabelManagedBy: ManagedBy}
	tests := []struct {
		name  string
		app   *webappv1.WebApp
		check func(t *testing.T, d *appsv1.Deployment)
	}{{
		name: "defaults of a minimal WebApp",
		app:  newApp(nil),
		check: func(t *testing.T, d *appsv1.Deployment) {
			expect(t, "name", d.Name, "shop")
			expect(t, "namespace", d.Namespace, "team-a")
			expect(t, "replicas", *d.Spec.Replicas, int32(1))
			expect(t, "selector", d.Spec.Selector.MatchLabels, wantSelector)
			expect(t, "labels", d.Labels, map[string]string{LabelName: AppName, LabelInstance: "shop", LabelManagedBy: ManagedBy})
			expect(t, "template labels", d.Spec.Template.Labels, wantPodLabels)
			c := d.Spec.Template.Spec.Containers
			expect(t, "containers", len(c), 1)
			expect(t, "container name", c[0].Name, ContainerName)
			expect(t, "image", c[0].Image, "example.com/shop:1.0")
			expect(t, "ports", c[0].Ports, []corev1.ContainerPort{{Name: PortName, ContainerPort: 8080, Protocol: corev1.ProtocolTCP}})
			expect(t, "readiness", c[0].ReadinessProbe, (*corev1.Probe)(nil))
			expect(t, "env", c[0].Env, []corev1.EnvVar(nil))
			expect(t, "resources", c[0].Resources, corev1.ResourceRequirements{})
			expect(t, "annotations", d.Spec.Template.Annotations, map[string]string{DefaultContainerAnnotation: ContainerName})
			expect(t, "progress deadline", d.Spec.ProgressDeadlineSeconds, (*int32)(nil))
			expect(t, "owner", d.OwnerReferences, []metav1.OwnerReference{{
				APIVersion: "apps.webapp-operator.io/v1alpha1", Kind: "WebApp", Name: "shop", UID: "uid-1",
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}})
		},
	}, {
		name: "scaled to zero keeps an explicit zero",
		app:  newApp(func(a *webappv1.WebApp) { a.Spec.Replicas = ptr.To[int32](0) }),
		check: func(t *testing.T, d *appsv1.Deployment) {
			expect(t, "replicas", d.Spec.Replicas, ptr.To[int32](0))
		},
	}, {
		name: "every optional field",
		app: newApp(func(a *webappv1.WebApp) {
			a.Spec.Replicas = ptr.To[int32](3)
			a.Spec.Port = 9090
			a.Spec.Env = []webappv1.EnvVar{{Name: "MODE", Value: "prod"}, {Name: "TOKEN", ValueFrom: &webappv1.EnvVarSource{
				SecretKeyRef: &webappv1.KeySelector{Name: "s", Key: "token"}}}}
			a.Spec.EnvFrom = []webappv1.EnvFromSource{{ConfigMapRef: &webappv1.ObjectReference{Name: "cm"}}}
			a.Spec.Resources = webappv1.ResourceRequirements{Requests: webappv1.ResourceList{"cpu": webappv1.MustParseQuantity("100m")}}
			a.Spec.HealthCheck = &webappv1.HealthCheck{Path: "/healthz"}
			a.Spec.PodLabels = map[string]webappv1.LabelValue{"team": "a"}
			a.Spec.PodAnnotations = map[string]webappv1.AnnotationValue{"prometheus.io/scrape": "true"}
			a.Spec.ProgressDeadlineSeconds = ptr.To[int32](120)
		}),
		check: func(t *testing.T, d *appsv1.Deployment) {
			c := d.Spec.Template.Spec.Containers[0]
			expect(t, "replicas", *d.Spec.Replicas, int32(3))
			expect(t, "port", c.Ports[0].ContainerPort, int32(9090))
			expect(t, "env", len(c.Env), 2)
			expect(t, "env secret", c.Env[1].ValueFrom.SecretKeyRef.Key, "token")
			expect(t, "envFrom", c.EnvFrom[0].ConfigMapRef.Name, "cm")
			expect(t, "cpu request", c.Resources.Requests.Cpu().MilliValue(), int64(100))
			expect(t, "readiness path", c.ReadinessProbe.HTTPGet.Path, "/healthz")
			expect(t, "readiness port", c.ReadinessProbe.HTTPGet.Port, intstr.FromString(PortName))
			expect(t, "liveness path", c.LivenessProbe.HTTPGet.Path, "/healthz")
			expect(t, "template labels", d.Spec.Template.Labels, map[string]string{LabelName: AppName, LabelInstance: "shop",
				LabelManagedBy: ManagedBy, "team": "a"})
			expect(t, "selector unchanged by pod labels", d.Spec.Selector.MatchLabels, wantSelector)
			expect(t, "annotations", d.Spec.Template.Annotations, map[string]string{"prometheus.io/scrape": "true",
				DefaultContainerAnnotation: ContainerName})
			expect(t, "progress deadline", *d.Spec.ProgressDeadlineSeconds, int32(120))
		},
	}, {
		name: "health check on its own port",
		app: newApp(func(a *webappv1.WebApp) {
			a.Spec.HealthCheck = &webappv1.HealthCheck{Path: "/ready", Port: ptr.To[int32](9000)}
		}),
		check: func(t *testing.T, d *appsv1.Deployment) {
			c := d.Spec.Template.Spec.Containers[0]
			expect(t, "readiness port", c.ReadinessProbe.HTTPGet.Port, intstr.FromInt32(9000))
			expect(t, "liveness port", c.LivenessProbe.HTTPGet.Port, intstr.FromInt32(9000))
		},
	}, {
		name: "reserved pod labels cannot move the selector",
		app:  newApp(func(a *webappv1.WebApp) { a.Spec.PodLabels = map[string]webappv1.LabelValue{LabelInstance: "other"} }),
		check: func(t *testing.T, d *appsv1.Deployment) {
			expect(t, "template labels", d.Spec.Template.Labels, wantPodLabels)
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, deployment(t, tt.app)) })
	}
}

func TestSelectorIsStableAcrossSpecChanges(t *testing.T) {
	before := deployment(t, newApp(nil))
	after := deployment(t, newApp(func(a *webappv1.WebApp) {
		a.Spec.Image = "example.com/shop:2.0"
		a.Spec.Replicas = ptr.To[int32](5)
		a.Spec.PodLabels = map[string]webappv1.LabelValue{"version": "2"}
		a.Generation = 7
	}))
	expect(t, "selector", after.Spec.Selector, before.Spec.Selector)
	expect(t, "object labels", after.Labels, before.Labels)
}

func TestRenderingIsDeterministic(t *testing.T) {
	app := newApp(func(a *webappv1.WebApp) {
		a.Spec.PodLabels = map[string]webappv1.LabelValue{"a": "1", "b": "2", "c": "3"}
		a.Spec.Env = []webappv1.EnvVar{{Name: "A", Value: "1"}, {Name: "B", Value: "2"}}
	})
	first, _ := renderDeployment(hub(t, app))
	for range 20 {
		again, _ := renderDeployment(hub(t, app))
		if !reflect.DeepEqual(first, again) {
			t.Fatal("two renderings of the same WebApp differ")
		}
	}
	s1, _ := renderService(hub(t, app))
	s2, _ := renderService(hub(t, app))
	if !reflect.DeepEqual(s1, s2) {
		t.Fatal("two renderings of the same Service differ")
	}
}

// TestRenderedChildrenAreControlledByTheWebApp checks the owner reference that the controller relies
// on (through metav1.IsControlledBy) to tell its children from foreign objects.
func TestRenderedChildrenAreControlledByTheWebApp(t *testing.T) {
	app := newApp(nil)
	d := deployment(t, app)
	expect(t, "own child", metav1.IsControlledBy(d, app), true)
	recreated := newApp(func(a *webappv1.WebApp) { a.UID = "uid-2" })
	expect(t, "child of a deleted namesake", metav1.IsControlledBy(d, recreated), false)
	d.OwnerReferences = nil
	expect(t, "orphan", metav1.IsControlledBy(d, app), false)
	d.OwnerReferences = []metav1.OwnerReference{{UID: "uid-1", Name: "shop", Kind: "WebApp"}}
	expect(t, "non-controller owner reference", metav1.IsControlledBy(d, app), false)
}

func TestSelectorString(t *testing.T) {
	expect(t, "selector", Selector(hub(t, newApp(nil))), "app.kubernetes.io/instance=shop,app.kubernetes.io/name=webapp")
}

func expect[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: got %#v, want %#v", what, got, want)
	}
}

// An image reference the kubelet would refuse (InvalidImageName) is reported before any pod is made.
func TestInvalidImage(t *testing.T) {
	for _, tt := range []struct {
		name  string
		edit  func(*webappv1.WebApp)
		field string
	}{
		{"upper case", func(a *webappv1.WebApp) { a.Spec.Image = "NGINX:Latest" }, "spec.container.image"},
		{"a short digest", func(a *webappv1.WebApp) { a.Spec.Image = "nginx@sha256:abc" }, "spec.container.image"},
		{"a sidecar's", func(a *webappv1.WebApp) {
			a.Spec.Sidecars = []webappv1.Container{{Name: "proxy", Image: "Proxy"}}
		}, "spec.pod.sidecars[0].image"},
		{"an init container's", func(a *webappv1.WebApp) {
			a.Spec.InitContainers = []webappv1.Container{{Name: "init", Image: "x::1"}}
		}, "spec.pod.initContainers[0].image"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			app := &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"},
				Spec: webappv1.WebAppSpec{Image: "registry.local:5000/team/shop@sha256:" + strings.Repeat("a", 64)}}
			if _, err := renderDeployment(hub(t, app)); err != nil {
				t.Fatalf("a valid reference with a port and a digest: %v", err)
			}
			tt.edit(app)
			_, err := renderDeployment(hub(t, app))
			problem := (*status.Problem)(nil)
			if !errors.As(err, &problem) || problem.Reason != status.ReasonInvalidImage ||
				!strings.HasPrefix(problem.Message, tt.field+": ") {
				t.Fatalf("got %v, want an InvalidImage problem naming %s", err, tt.field)
			}
		})
	}
}
