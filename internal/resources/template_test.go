package resources

import (
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/applyconfigurations"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// The config revision goes on the pod template as the operator's own annotation; a forged one in
// the WebApp's pod annotations never does.
func TestDesiredDeploymentCarriesTheConfigRevision(t *testing.T) {
	app := newApp(func(a *webappv1.WebApp) {
		a.Spec.PodAnnotations = map[string]webappv1.AnnotationValue{"team.example.com/owner": "alice",
			webappv1.ConfigRevisionAnnotation: "forged"}
	})
	render := func(rev string) map[string]string {
		d, source, err := DesiredDeployment(inputs(t, app, nil, rev))
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
			d, source, err := DesiredDeployment(inputs(t, app, withManagedFields(t, tc.live), tc.configRevision))
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
	d, _, err := DesiredDeployment(inputs(t, app, nil, ""))
	if err != nil {
		t.Fatal(err)
	}
	rs := decided(t, newApp(nil), nil, "c1").Spec.Template.DeepCopy()
	rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = "abc123"
	if err := RollBack(d, templateSpec(t, app), rs, v1beta1.RollbackStatus{Generation: 3, Image: "broken"}); err != nil {
		t.Fatal(err)
	}
	got := typed[appsv1.Deployment](t, d)
	if got.Spec.Template.Spec.Containers[0].Image == "broken" || got.Spec.Template.Labels[appsv1.DefaultDeploymentUniqueLabelKey] != "" {
		t.Errorf("template %+v: want the ReplicaSet's, without its hash label", got.Spec.Template)
	}
	if rb := RolledBackFor(hub(t, app), got); rb == nil || rb.Image != "broken" {
		t.Errorf("rollback record %v", got.Annotations)
	}
	stamped := TemplateInputs(templateSpec(t, app), "c1")
	if !strings.HasPrefix(got.Annotations[TemplateAnnotation], stamped+"/") {
		t.Errorf("stamp %q: want one of the inputs %s (the ReplicaSet's configuration)", got.Annotations[TemplateAnnotation], stamped)
	}
	app.Generation = 4
	if RolledBackFor(hub(t, app), got) != nil {
		t.Error("a rollback recorded for generation 3 holds for generation 4")
	}
}

// decided is the Deployment the operator applies for app over live.
func decided(t *testing.T, app *webappv1.WebApp, live *appsv1.Deployment, configRevision string) *appsv1.Deployment {
	t.Helper()
	d, _, err := DesiredDeployment(inputs(t, app, live, configRevision))
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
	if err := StampTemplate(ac, TemplateInputs(templateSpec(t, app), configRevision)); err != nil {
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
