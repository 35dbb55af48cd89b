package resources

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/applyconfigurations"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
)

// The fields TemplateInputs leaves out must not feed the pod template: a change of one that did
// would not end a hold (DesiredDeployment), and the WebApp's change would not be applied.
func TestNotTemplateFieldsDoNotChangeThePodTemplate(t *testing.T) {
	base := newApp(func(a *webappv1.WebApp) {
		a.Spec.Ports = []webappv1.ContainerPort{{Name: "metrics", ContainerPort: 9090}}
	})
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
	notTemplateFields(cleared)
	want := base.Spec.DeepCopy()
	notTemplateFields(want)
	if !reflect.DeepEqual(cleared, want) {
		t.Fatal("the test sets a field notTemplateFields keeps, or misses one it clears")
	}
	for name, spec := range map[string]webappv1.WebAppSpec{"all of them": changed.Spec} {
		a, b := base.DeepCopy(), base.DeepCopy()
		b.Spec = spec
		ta, err := podTemplate(a)
		if err != nil {
			t.Fatal(err)
		}
		tb, err := podTemplate(b)
		if err != nil {
			t.Fatal(err)
		}
		ja, _ := json.Marshal(ta)
		jb, _ := json.Marshal(tb)
		if string(ja) != string(jb) {
			t.Errorf("%s: the pod template changes with fields TemplateInputs leaves out:\n%s\n%s", name, ja, jb)
		}
	}
	ia, _ := TemplateInputs(base, "c1")
	ib, _ := TemplateInputs(changed, "c1")
	ic, _ := TemplateInputs(base, "c2")
	if ia != ib || ia == ic {
		t.Errorf("inputs %s, %s (other fields), %s (other configuration)", ia, ib, ic)
	}
	env := base.DeepCopy()
	env.Spec.Env = []webappv1.EnvVar{{Name: "MODE", Value: "blue"}}
	if ie, _ := TemplateInputs(env, "c1"); ie == ia {
		t.Error("a field the template is rendered from must change the inputs")
	}
}

// The config revision goes on the pod template as the operator's own annotation; a forged one in
// the WebApp's pod annotations never does.
func TestDesiredDeploymentCarriesTheConfigRevision(t *testing.T) {
	app := newApp(func(a *webappv1.WebApp) {
		a.Spec.PodAnnotations = map[string]webappv1.AnnotationValue{"team.example.com/owner": "alice",
			webappv1.ConfigRevisionAnnotation: "forged"}
	})
	render := func(rev string) map[string]string {
		d, source, err := DesiredDeployment(DeploymentInputs{App: app, ConfigRevision: rev})
		if err != nil || source != TemplateRendered {
			t.Fatalf("%v, %v", source, err)
		}
		return typed[appsv1.Deployment](t, d).Spec.Template.Annotations
	}
	if got := render("0123456789abcdef"); !reflect.DeepEqual(got, map[string]string{
		"team.example.com/owner": "alice", webappv1.ConfigRevisionAnnotation: "0123456789abcdef",
		DefaultContainerAnnotation: ContainerName}) {
		t.Errorf("pod annotations %v: want the pod annotations and the revision", got)
	}
	if got := render(""); !reflect.DeepEqual(got, map[string]string{"team.example.com/owner": "alice",
		DefaultContainerAnnotation: ContainerName}) {
		t.Errorf("no revision: pod annotations %v, want only the WebApp's (and not the forged one)", got)
	}
}

// The template decision, against Deployments as the API server returns them after the operator's
// apply (their managed fields say what the operator owns).
func TestDesiredDeploymentDecidesTheTemplate(t *testing.T) {
	app := newApp(func(a *webappv1.WebApp) { a.Generation = 3 })
	rendered := decided(t, app, nil, "")
	// what an earlier operator applied for the same inputs: one more pod annotation, stamped as its own
	earlier := rendered.DeepCopy()
	earlier.Spec.Template.Annotations["example.com/rendered-by"] = "an earlier operator"
	stampAs(t, earlier, app, "")
	// the same, edited since by someone else: no longer as stamped
	edited := earlier.DeepCopy()
	edited.Spec.Template.Spec.Containers[0].Image = "someone/else"
	// rolled back for generation 3, onto an earlier template
	rolledBack := earlier.DeepCopy()
	rolledBack.Annotations[RollbackAnnotation] = `{"generation":3,"image":"broken","reason":"r","message":"m",` +
		`"to":{"revision":1,"generation":2,"image":"v1","readyAt":null},"at":null}`
	staleRollback := rolledBack.DeepCopy()
	staleRollback.Annotations[RollbackAnnotation] = `{"generation":2}`

	for name, tc := range map[string]struct {
		live           *appsv1.Deployment
		configRevision string
		want           TemplateSource
		wantAnnotation string // on the decided template
	}{
		"no Deployment yet":                          {want: TemplateRendered},
		"up to date":                                 {live: rendered, want: TemplateRendered},
		"an earlier operator's template is held":     {live: earlier, want: TemplateHeld, wantAnnotation: "example.com/rendered-by"},
		"new inputs end the hold":                    {live: earlier, configRevision: "c2", want: TemplateRendered},
		"a template edited since is put back":        {live: edited, want: TemplateRendered},
		"a rollback of this generation pins":         {live: rolledBack, want: TemplatePinned, wantAnnotation: "example.com/rendered-by"},
		"a rollback of an earlier generation is off": {live: staleRollback, want: TemplateHeld, wantAnnotation: "example.com/rendered-by"},
	} {
		t.Run(name, func(t *testing.T) {
			d, source, err := DesiredDeployment(DeploymentInputs{App: app, Live: withManagedFields(t, tc.live), ConfigRevision: tc.configRevision})
			if err != nil {
				t.Fatal(err)
			}
			if source != tc.want {
				t.Errorf("template source %d, want %d", source, tc.want)
			}
			got := typed[appsv1.Deployment](t, d)
			if _, ok := got.Spec.Template.Annotations["example.com/rendered-by"]; ok != (tc.wantAnnotation != "") {
				t.Errorf("pod annotations %v", got.Spec.Template.Annotations)
			}
			if got.Annotations[TemplateAnnotation] == "" {
				t.Error("the decided Deployment carries no stamp")
			}
		})
	}
}

// A rollback goes back to the ReplicaSet's template, stamped, with its record.
func TestRollBack(t *testing.T) {
	app := newApp(func(a *webappv1.WebApp) { a.Generation = 3; a.Spec.Image = "broken" })
	d, _, err := DesiredDeployment(DeploymentInputs{App: app})
	if err != nil {
		t.Fatal(err)
	}
	rs := decided(t, newApp(nil), nil, "c1").Spec.Template.DeepCopy()
	rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = "abc123"
	if err := RollBack(d, app, rs, webappv1.RollbackStatus{Generation: 3, Image: "broken"}); err != nil {
		t.Fatal(err)
	}
	got := typed[appsv1.Deployment](t, d)
	if got.Spec.Template.Spec.Containers[0].Image == "broken" || got.Spec.Template.Labels[appsv1.DefaultDeploymentUniqueLabelKey] != "" {
		t.Errorf("template %+v: want the ReplicaSet's, without its hash label", got.Spec.Template)
	}
	if rb := RolledBackFor(app, got); rb == nil || rb.Image != "broken" {
		t.Errorf("rollback record %v", got.Annotations)
	}
	inputs, _ := TemplateInputs(app, "c1")
	if !strings.HasPrefix(got.Annotations[TemplateAnnotation], inputs+"/") {
		t.Errorf("stamp %q: want one of the inputs %s (the ReplicaSet's configuration)", got.Annotations[TemplateAnnotation], inputs)
	}
	app.Generation = 4
	if RolledBackFor(app, got) != nil {
		t.Error("a rollback recorded for generation 3 holds for generation 4")
	}
}

// decided is the Deployment the operator applies for app over live.
func decided(t *testing.T, app *webappv1.WebApp, live *appsv1.Deployment, configRevision string) *appsv1.Deployment {
	t.Helper()
	d, _, err := DesiredDeployment(DeploymentInputs{App: app, Live: live, ConfigRevision: configRevision})
	if err != nil {
		t.Fatal(err)
	}
	return typed[appsv1.Deployment](t, d)
}

// stampAs stamps d's template as rendered from app's inputs.
func stampAs(t *testing.T, d *appsv1.Deployment, app *webappv1.WebApp, configRevision string) {
	t.Helper()
	ac := &appsv1ac.DeploymentApplyConfiguration{}
	if err := convert(d, ac); err != nil {
		t.Fatal(err)
	}
	inputs, _ := TemplateInputs(app, configRevision)
	if err := StampTemplate(ac, inputs); err != nil {
		t.Fatal(err)
	}
	d.Annotations = ac.Annotations
}

// withManagedFields returns d as the API server would after the operator applied it: every field
// of it owned by FieldOwner.
func withManagedFields(t *testing.T, d *appsv1.Deployment) *appsv1.Deployment {
	t.Helper()
	if d == nil {
		return nil
	}
	d = d.DeepCopy()
	d.SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind("Deployment"))
	scheme := runtime.NewScheme()
	if err := appsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	tv, err := applyconfigurations.NewTypeConverter(scheme).ObjectToTyped(d)
	if err != nil {
		t.Fatal(err)
	}
	set, err := tv.ToFieldSet()
	if err != nil {
		t.Fatal(err)
	}
	fields, err := set.ToJSON()
	if err != nil {
		t.Fatal(err)
	}
	d.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: FieldOwner, Operation: metav1.ManagedFieldsOperationApply,
		APIVersion: "apps/v1", FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(string(fields))}}
	return d
}
