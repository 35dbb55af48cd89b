package resources

import (
	"encoding/json"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
)

// The fields TemplateInputs leaves out must not feed the pod template: a change of one that did
// would not end a hold (TemplateFor), and the WebApp's change would not be applied.
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
