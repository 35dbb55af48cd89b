package served_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/reference"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/served"
	"github.com/webapp-operator/webapp-operator/internal/testenv"
)

// corpus are the WebApps of internal/resources' TestRenderCorpus: v1alpha1 objects as the API
// server admits them.
func corpus(t *testing.T) []*webappv1.WebApp {
	t.Helper()
	apps, err := testenv.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	return apps
}

func toHub(t *testing.T, app *webappv1.WebApp) *v1beta1.WebApp {
	t.Helper()
	hub, err := served.ToHub(app)
	if err != nil {
		t.Fatal(err)
	}
	return hub
}

func templateSpec(t *testing.T, app *webappv1.WebApp) []byte {
	t.Helper()
	spec, err := served.TemplateSpec(toHub(t, app))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// The upgrade policy's stamp fingerprints what it fingerprinted when the renderer read v1alpha1:
// the v1alpha1 spec without the fields that do not feed the template, to the byte. Another input
// would release every template an earlier operator's stamp holds.
func TestTemplateSpecIsWhatTheStampAlwaysFingerprinted(t *testing.T) {
	for _, app := range corpus(t) {
		spec := app.Spec.DeepCopy()
		served.NotTemplateFields(spec)
		want, err := json.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := templateSpec(t, app); string(got) != string(want) {
			t.Errorf("%s: the stamp fingerprints\n%s\nnot\n%s", app.Name, got, want)
		}
	}
}

// A spec built in Go, which the API server never defaulted, comes back from the hub with the CRD's
// default for rolloutOnConfigChange: the one field whose absence the hub cannot tell from true.
func TestTemplateSpecOfAnUndefaultedWebApp(t *testing.T) {
	app := &webappv1.WebApp{Spec: webappv1.WebAppSpec{Image: "nginx"}}
	spec := app.Spec.DeepCopy()
	served.NotTemplateFields(spec)
	spec.RolloutOnConfigChange = ptr.To(true)
	want, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	if got := templateSpec(t, app); string(got) != string(want) {
		t.Errorf("the stamp fingerprints\n%s\nnot\n%s", got, want)
	}
}

// The fields TemplateSpec leaves out must not feed the pod template: a change of one that did
// would not end a hold (resources.DesiredDeployment), and the WebApp's change would not be applied.
func TestNotTemplateFieldsDoNotChangeThePodTemplate(t *testing.T) {
	base := &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "team-a", UID: "uid-1"},
		Spec: webappv1.WebAppSpec{Image: "example.com/shop:1.0",
			Ports: []webappv1.ContainerPort{{Name: "metrics", ContainerPort: 9090}}}}
	changed := base.DeepCopy()
	s := &changed.Spec
	s.Replicas = ptr.To[int32](7)
	s.Service = webappv1.ServiceSpec{Type: webappv1.ServiceTypeNodePort, Port: 8081, NodePort: ptr.To[int32](30080)}
	s.MinReadySeconds, s.ProgressDeadlineSeconds, s.RevisionHistoryLimit = ptr.To[int32](5), ptr.To[int32](60), ptr.To[int32](2)
	s.Strategy = &webappv1.RolloutStrategy{MaxSurge: ptr.To(intstr.FromInt32(3))}
	s.Paused, s.Rollout = true, &webappv1.Rollout{AutoRollback: true}
	s.DisruptionBudget = &webappv1.DisruptionBudget{Enabled: ptr.To(false)}
	s.Autoscaling = &webappv1.Autoscaling{MaxReplicas: 9}
	s.NetworkPolicy = &webappv1.NetworkPolicy{FromNamespaces: []string{"gateways"}}
	s.Ingress = &webappv1.Ingress{Hosts: []string{"shop.example.com"}}
	s.Route = &webappv1.Route{Hostnames: []string{"shop.example.com"}, ParentRefs: []webappv1.RouteParentRef{{Name: "gw"}}}
	s.Metrics = &webappv1.Metrics{Port: ptr.To(intstr.FromString("metrics"))}

	// every field notTemplateFields clears is set above: a field added to it must be tried here too
	cleared := changed.Spec.DeepCopy()
	served.NotTemplateFields(cleared)
	want := base.Spec.DeepCopy()
	served.NotTemplateFields(want)
	if !reflect.DeepEqual(cleared, want) {
		t.Fatal("the test sets a field notTemplateFields keeps, or misses one it clears")
	}
	if a, b := podTemplate(t, base), podTemplate(t, changed); a != b {
		t.Errorf("the pod template changes with fields TemplateSpec leaves out:\n%s\n%s", a, b)
	}
	ia := resources.TemplateInputs(templateSpec(t, base), "c1")
	ib := resources.TemplateInputs(templateSpec(t, changed), "c1")
	ic := resources.TemplateInputs(templateSpec(t, base), "c2")
	if ia != ib || ia == ic {
		t.Errorf("inputs %s, %s (other fields), %s (other configuration)", ia, ib, ic)
	}
	env := base.DeepCopy()
	env.Spec.Env = []webappv1.EnvVar{{Name: "MODE", Value: "blue"}}
	if ie := resources.TemplateInputs(templateSpec(t, env), "c1"); ie == ia {
		t.Error("a field the template is rendered from must change the inputs")
	}
}

// podTemplate is the pod template of app's Deployment, in JSON.
func podTemplate(t *testing.T, app *webappv1.WebApp) string {
	t.Helper()
	d := deployment(t, app)
	b, err := json.Marshal(d.Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func deployment(t *testing.T, app *webappv1.WebApp) *appsv1.Deployment {
	t.Helper()
	ac, err := resources.Deployment.Desired(toHub(t, app))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(ac)
	if err != nil {
		t.Fatal(err)
	}
	d := &appsv1.Deployment{}
	if err := json.Unmarshal(b, d); err != nil {
		t.Fatal(err)
	}
	return d
}

// The defaults only v1beta1 declares stay unset in the hub where the v1alpha1 WebApp left them
// unset, and stay set where it wrote them, even to the default's value: the renderer owns exactly
// the fields it owned when it read v1alpha1.
func TestToHubLeavesUnsetWhatTheWebAppLeftUnset(t *testing.T) {
	probe := &webappv1.Probe{HTTPGet: &webappv1.HTTPGetAction{Path: "/ready"}}
	unset := &webappv1.WebApp{Spec: webappv1.WebAppSpec{Image: "nginx", Probes: &webappv1.Probes{Readiness: probe}}}
	written := unset.DeepCopy()
	s := &written.Spec
	s.MinReadySeconds, s.ProgressDeadlineSeconds, s.RevisionHistoryLimit = ptr.To[int32](0), ptr.To[int32](600), ptr.To[int32](10)
	s.Strategy = &webappv1.RolloutStrategy{MaxSurge: ptr.To(intstr.FromString("25%")), MaxUnavailable: ptr.To(intstr.FromInt32(0))}
	s.Probes.Readiness.PeriodSeconds, s.Probes.Readiness.TimeoutSeconds = ptr.To[int32](10), ptr.To[int32](1)
	s.Probes.Readiness.SuccessThreshold, s.Probes.Readiness.FailureThreshold = ptr.To[int32](1), ptr.To[int32](3)

	d := deployment(t, unset).Spec
	if d.MinReadySeconds != 0 || d.ProgressDeadlineSeconds != nil || d.RevisionHistoryLimit != nil ||
		d.Strategy.RollingUpdate.MaxSurge != nil {
		t.Errorf("unset in the WebApp, rendered: %+v", d)
	}
	if r := d.Template.Spec.Containers[0].ReadinessProbe; r.PeriodSeconds != 0 || r.TimeoutSeconds != 0 ||
		r.SuccessThreshold != 0 || r.FailureThreshold != 0 {
		t.Errorf("probe timings unset in the WebApp, rendered: %+v", r)
	}
	d = deployment(t, written).Spec
	if ptr.Deref(d.ProgressDeadlineSeconds, 0) != 600 || ptr.Deref(d.RevisionHistoryLimit, 0) != 10 ||
		d.Strategy.RollingUpdate.MaxSurge.String() != "25%" || d.Strategy.RollingUpdate.MaxUnavailable.String() != "0" {
		t.Errorf("written in the WebApp, not rendered: %+v", d)
	}
	if r := d.Template.Spec.Containers[0].ReadinessProbe; r.PeriodSeconds != 10 || r.TimeoutSeconds != 1 ||
		r.SuccessThreshold != 1 || r.FailureThreshold != 3 {
		t.Errorf("probe timings written in the WebApp, not rendered: %+v", r)
	}
}

// The healthCheck shorthand renders its fixed timings and leaves the timeout and success threshold
// to Kubernetes, as it did before it was written out as probes.
func TestToHubRendersTheHealthCheckAsBefore(t *testing.T) {
	app := &webappv1.WebApp{Spec: webappv1.WebAppSpec{Image: "nginx", HealthCheck: &webappv1.HealthCheck{Path: "/healthz"}}}
	c := deployment(t, app).Spec.Template.Spec.Containers[0]
	get := `{"httpGet":{"path":"/healthz","port":"http"}`
	for name, got := range map[string]any{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
		b, _ := json.Marshal(got)
		want := map[string]string{"readiness": get + `,"periodSeconds":5,"failureThreshold":3}`,
			"liveness": get + `,"initialDelaySeconds":10,"periodSeconds":10,"failureThreshold":6}`}[name]
		if string(b) != want {
			t.Errorf("%s probe %s, want %s", name, b, want)
		}
	}
}

// Decode reads a WebApp as the API server serves it, in v1beta1 with every default v1beta1
// declares filled in, and gives the hub ToHub gives for the v1alpha1 WebApp it was created as: the
// renderer renders what it rendered before v1beta1 was served.
func TestDecode(t *testing.T) {
	for _, app := range corpus(t)[:20] {
		stored := &v1beta1.WebApp{}
		if err := app.DeepCopy().ConvertTo(stored); err != nil {
			t.Fatal(err)
		}
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(stored)
		if err != nil {
			t.Fatal(err)
		}
		got, err := served.Decode(obj)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(toHub(t, app), got); diff != "" {
			t.Errorf("%s (-ToHub +Decode):\n%s", app.Name, diff)
		}
	}
	if _, err := served.Decode(map[string]any{"spec": map[string]any{"replicas": "two"}}); err == nil {
		t.Error("a WebApp whose replicas is a string decoded")
	}
}

// Status patches and events name the WebApp in the served version, v1beta1, with its identity.
func TestObjectIsTheServedWebApp(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := served.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	app := corpus(t)[0]
	app.ResourceVersion = "42"
	hub := toHub(t, app)
	want, err := reference.GetReference(scheme, hub)
	if err != nil {
		t.Fatal(err)
	}
	got, err := reference.GetReference(scheme, served.Object(hub))
	if err != nil {
		t.Fatal(err)
	}
	if *got != *want || got.APIVersion != "apps.webapp-operator.io/v1beta1" || got.UID != app.UID {
		t.Errorf("reference %+v, want %+v", got, want)
	}
}
