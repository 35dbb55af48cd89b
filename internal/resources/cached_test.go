package resources_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/applyconfigurations"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// The cache keeps a digest of the owned fields in place of them (Child.Trim). These tests build,
// for each Deployment and Service of the corpus, the live object that applying it leaves (the
// desired fields, owned by our field manager, with what the API server and the controllers add),
// and check that the digest sees it as up to date, and sees drift in each owned field.

// renderedChildren reads the corpus's desired Deployments and Services (rendered.jsonl).
func renderedChildren(t testing.TB) (deployments []*appsv1ac.DeploymentApplyConfiguration, services []*corev1ac.ServiceApplyConfiguration) {
	t.Helper()
	f, err := os.Open(filepath.Join(corpusDir, "rendered.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r rendering
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if raw := r.Children["Deployment"]; len(raw) > 0 && string(raw) != "null" {
			d := &appsv1ac.DeploymentApplyConfiguration{}
			mustUnmarshal(t, raw, d)
			deployments = append(deployments, d)
		}
		if raw := r.Children["Service"]; len(raw) > 0 && string(raw) != "null" {
			s := &corev1ac.ServiceApplyConfiguration{}
			mustUnmarshal(t, raw, s)
			services = append(services, s)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return deployments, services
}

func mustUnmarshal(t testing.TB, data []byte, into any) {
	t.Helper()
	if err := json.Unmarshal(data, into); err != nil {
		t.Fatal(err)
	}
}

var typeConverter = applyconfigurations.NewTypeConverter(clientgoscheme.Scheme)

// ownedSet is the set of fields that applying desired makes our field manager own, as the API
// server records it: every field desired sets but the object's identity.
func ownedSet(t testing.TB, desired map[string]any) *fieldpath.Set {
	t.Helper()
	tv, err := typeConverter.ObjectToTyped(&unstructured.Unstructured{Object: desired})
	if err != nil {
		t.Fatal(err)
	}
	set, err := tv.ToFieldSet()
	if err != nil {
		t.Fatal(err)
	}
	return set.Difference(fieldpath.NewSet(fieldpath.MakePathOrDie("apiVersion"), fieldpath.MakePathOrDie("kind"),
		fieldpath.MakePathOrDie("metadata", "name"), fieldpath.MakePathOrDie("metadata", "namespace")))
}

// applied is the live object that applying desired (an apply configuration) leaves, as the unstructured
// form of a T, and the fields our field manager owns on it.
func applied(t testing.TB, desired runtime.ApplyConfiguration) (map[string]any, *fieldpath.Set) {
	t.Helper()
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(desired)
	if err != nil {
		t.Fatal(err)
	}
	set := ownedSet(t, u)
	live := runtime.DeepCopyJSON(u)
	fields, err := set.ToJSON()
	if err != nil {
		t.Fatal(err)
	}
	at := metav1.NewTime(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	entries := []metav1.ManagedFieldsEntry{
		{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "apps/v1",
			Time: &at, FieldsType: "FieldsV1", Subresource: "status",
			FieldsV1: metav1.NewFieldsV1(`{"f:status":{"f:replicas":{},"f:conditions":{}}}`)},
		{Manager: resources.FieldOwner, Operation: metav1.ManagedFieldsOperationApply, APIVersion: "apps/v1",
			Time: &at, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(string(fields))},
	}
	obj := &unstructured.Unstructured{Object: live}
	obj.SetManagedFields(entries)
	obj.SetUID("0d4c6b52-8a1b-4c1e-9c9e-5a2f0f7c1a11")
	obj.SetResourceVersion("123456")
	obj.SetGeneration(1)
	obj.SetCreationTimestamp(at)
	return obj.Object, set
}

// typed converts the unstructured form of a live child to its Go type, new.
func typed(t testing.TB, u map[string]any, newObj client.Object) client.Object {
	t.Helper()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(runtime.DeepCopyJSON(u), newObj); err != nil {
		t.Fatal(err)
	}
	return newObj
}

func trim(t testing.TB, child resources.Child, live client.Object) client.Object {
	t.Helper()
	got, err := child.Trim(live)
	if err != nil {
		t.Fatal(err)
	}
	obj := got.(client.Object)
	if !resources.Trimmed(obj) {
		t.Fatalf("%s: Trim left no digest", child.Kind())
	}
	// The cache may hand an object to its transform twice: it stays as it is.
	again, err := child.Trim(obj)
	if err != nil || again.(client.Object) != obj {
		t.Fatalf("%s: Trim of a trimmed object changed it (%v)", child.Kind(), err)
	}
	return obj
}

// TestTrimmedChildSeesDriftInEveryOwnedField: for each Deployment and Service of the corpus, the
// trimmed live object is up to date, trimmed or whole, and a change of any one field that our field
// manager owns makes it not up to date. A field the digest missed would be drift never corrected.
func TestTrimmedChildSeesDriftInEveryOwnedField(t *testing.T) {
	deployments, services := renderedChildren(t)
	if len(deployments) < 100 || len(services) < 100 {
		t.Fatalf("the corpus has %d Deployments and %d Services", len(deployments), len(services))
	}
	check := func(t *testing.T, child resources.Child, desired runtime.ApplyConfiguration) {
		u, set := applied(t, desired)
		whole := typed(t, u, child.New())
		// Up to date, whole or trimmed, including the children whose desired object sets a zero
		// that the Go type drops (minReadySeconds: 0): the API server's objects have dropped it too.
		if !child.UpToDate(whole, desired) {
			t.Fatalf("%s %s: the whole live object is not up to date", child.Kind(), whole.GetName())
		}
		if !child.UpToDate(trim(t, child, whole), desired) {
			t.Fatalf("%s %s: the trimmed live object is not up to date", child.Kind(), whole.GetName())
		}
		set.Leaves().Iterate(func(path fieldpath.Path) {
			drifted := runtime.DeepCopyJSON(u)
			if !drift(drifted, path) {
				t.Fatalf("%s %s: cannot change %s", child.Kind(), whole.GetName(), path)
			}
			// A change that leaves the owned fields unreadable (a duplicate key) leaves the object
			// whole, which UpToDate reads whole.
			live, err := child.Trim(typed(t, drifted, child.New()))
			if err != nil {
				t.Fatal(err)
			}
			if child.UpToDate(live.(client.Object), desired) {
				t.Errorf("%s %s: a change of %s is not seen", child.Kind(), whole.GetName(), path)
			}
		})
	}
	for _, d := range deployments {
		check(t, resources.Deployment, d)
	}
	for _, s := range services {
		check(t, resources.Service, s)
	}
}

// drift changes the value at path in obj, the unstructured form of a child; false if there is none.
func drift(obj map[string]any, path fieldpath.Path) bool {
	set := func(any) {}
	var cur any = obj
	for _, pe := range path {
		switch {
		case pe.FieldName != nil:
			m, ok := cur.(map[string]any)
			if !ok {
				return false
			}
			name := *pe.FieldName
			set = func(v any) { m[name] = v }
			cur, ok = m[name]
			if !ok {
				return false
			}
		case pe.Key != nil, pe.Value != nil, pe.Index != nil:
			items, ok := cur.([]any)
			if !ok {
				return false
			}
			i := itemIndex(items, pe)
			if i < 0 {
				return false
			}
			set = func(v any) { items[i] = v }
			cur = items[i]
		}
	}
	set(changed(cur))
	return true
}

// itemIndex is the index of the item of items that pe names, or -1.
func itemIndex(items []any, pe fieldpath.PathElement) int {
	for i, item := range items {
		switch {
		case pe.Index != nil && *pe.Index == i:
			return i
		case pe.Value != nil && value.Equals(*pe.Value, value.NewValueInterface(item)):
			return i
		case pe.Key != nil:
			m, ok := item.(map[string]any)
			if !ok {
				continue
			}
			match := true
			for _, f := range *pe.Key {
				if !value.Equals(f.Value, value.NewValueInterface(m[f.Name])) {
					match = false
				}
			}
			if match {
				return i
			}
		}
	}
	return -1
}

// changed is another value of v's type, one that still decodes into the field: a quantity changes
// its amount, not its form.
func changed(v any) any {
	switch v := v.(type) {
	case string:
		if q, err := resource.ParseQuantity(v); err == nil {
			q.Add(resource.MustParse("1"))
			return q.String()
		}
		if _, err := time.ParseDuration(v); err == nil {
			return v + "1s"
		}
		return v + "x"
	case int64:
		return v + 1
	case float64:
		return v + 1
	case bool:
		return !v
	case []any:
		if len(v) == 0 {
			return []any{"x"}
		}
		return append(v, runtime.DeepCopyJSONValue(v[len(v)-1]))
	case map[string]any:
		// a field of an atomic object (an owner reference, a selector): one it has, since the
		// Go type would drop an unknown one
		out := runtime.DeepCopyJSON(v)
		keys := slices.Sorted(maps.Keys(out))
		if len(keys) == 0 {
			return nil // emptyDir: {}, whose only change is to go
		}
		out[keys[0]] = changed(out[keys[0]])
		return out
	case nil:
		return "x"
	}
	panic(fmt.Sprintf("cannot change a %T", v))
}

// A quantity is compared by its amount, as the API server stores it: the desired 1000m is the live 1.
func TestUpToDateComparesQuantitiesByAmount(t *testing.T) {
	desired := func(cpu string) *appsv1ac.DeploymentApplyConfiguration {
		return appsv1ac.Deployment("shop", "team-a").WithSpec(appsv1ac.DeploymentSpec().WithTemplate(
			corev1ac.PodTemplateSpec().WithSpec(corev1ac.PodSpec().WithContainers(corev1ac.Container().WithName("app").
				WithResources(corev1ac.ResourceRequirements().WithRequests(corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse(cpu)}))))))
	}
	u, _ := applied(t, desired("1"))
	live := trim(t, resources.Deployment, typed(t, u, &appsv1.Deployment{}))
	for cpu, want := range map[string]bool{"1": true, "1000m": true, "1.0": true, "999m": false, "2": false} {
		if got := resources.Deployment.UpToDate(live, desired(cpu)); got != want {
			t.Errorf("a live cpu request of 1 is up to date with %s: %v, want %v", cpu, got, want)
		}
	}
}

// The cache keeps of a Deployment what its readers read: status, health, rollback and the upgrade
// policy read the same from it as from the whole object; and whether the operator owns the replicas,
// which the handover reads.
func TestTrimmedDeploymentKeepsWhatItsReadersRead(t *testing.T) {
	deployments, _ := renderedChildren(t)
	u, _ := applied(t, deployments[0])
	whole := typed(t, u, &appsv1.Deployment{}).(*appsv1.Deployment)
	whole.Annotations[status.RevisionAnnotation] = "3"
	whole.Annotations[resources.RollbackAnnotation] = `{"generation":1}`
	whole.Annotations["team"] = "a"
	whole.Spec.Template.Annotations = map[string]string{v1beta1.ConfigRevisionAnnotation: "abc", "team": "a"}
	whole.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 1,
		AvailableReplicas: 1, Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing,
			Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable", Message: "m"}}}
	trimmed := trim(t, resources.Deployment, whole.DeepCopy()).(*appsv1.Deployment)

	app := &v1beta1.WebApp{ObjectMeta: metav1.ObjectMeta{Name: whole.Name, Namespace: whole.Namespace, Generation: 1}}
	app.Spec.Container.Image = "nginx"
	if got, want := resources.Deployment.Health(app, trimmed), resources.Deployment.Health(app, whole); got != want {
		t.Errorf("Health: trimmed %+v, whole %+v", got, want)
	}
	if got, want := resources.RolledBackFor(app, trimmed), resources.RolledBackFor(app, whole); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("RolledBackFor: trimmed %v, whole %v", got, want)
	}
	for _, c := range []struct{ name, got, want string }{
		{"revision", trimmed.Annotations[status.RevisionAnnotation], "3"},
		{"template stamp", trimmed.Annotations[resources.TemplateAnnotation], whole.Annotations[resources.TemplateAnnotation]},
		{"config revision", trimmed.Spec.Template.Annotations[v1beta1.ConfigRevisionAnnotation], "abc"},
		{"image", trimmed.Spec.Template.Spec.Containers[0].Image, whole.Spec.Template.Spec.Containers[0].Image},
		{"owner", string(trimmed.OwnerReferences[0].UID), string(whole.OwnerReferences[0].UID)},
		{"applied at", resources.AppliedAt(trimmed).String(), resources.AppliedAt(whole).String()},
	} {
		if c.got != c.want || c.want == "" {
			t.Errorf("%s: trimmed %q, whole %q", c.name, c.got, c.want)
		}
	}
	autoscaled := app.DeepCopy()
	autoscaled.Spec.Scaling.Autoscaler = &v1beta1.Autoscaler{}
	got, err := resources.Deployment.Handover(autoscaled, trimmed)
	want, err2 := resources.Deployment.Handover(autoscaled, whole)
	if err != nil || err2 != nil || got == nil || mustJSON(t, got) != mustJSON(t, want) {
		t.Errorf("Handover: trimmed %v (%v), whole %v (%v)", got, err, want, err2)
	}
	// A pass that keeps the live template cannot decide from the trimmed Deployment: it says so.
	_, _, err = resources.DesiredDeployment(resources.DeploymentInputs{App: app, Live: trimmed, TemplateSpec: []byte("{}")})
	if !strings.Contains(fmt.Sprint(err), "live pod template") {
		t.Errorf("DesiredDeployment of a pinned template from a trimmed Deployment: %v, want ErrLiveTemplateNeeded", err)
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// cachedBytes is the heap that n objects, as keep returns them, hold.
func cachedBytes(n int, keep func() any) float64 {
	kept := make([]any, n)
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	for i := range kept {
		kept[i] = keep()
	}
	goruntime.GC()
	goruntime.ReadMemStats(&after)
	goruntime.KeepAlive(kept)
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
}

// cacheForms are, for the corpus's first Deployment and Service as the API server would send them,
// what the cache keeps: whole (but for other managers' managed fields), and Trim's form.
func cacheForms(t testing.TB) map[string]func() any {
	deployments, services := renderedChildren(t)
	decoded := func(desired runtime.ApplyConfiguration, newObj func() client.Object) func() client.Object {
		u, _ := applied(t, desired)
		data, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		return func() client.Object {
			obj := newObj()
			mustUnmarshal(t, data, obj)
			return obj
		}
	}
	d := decoded(deployments[0], resources.Deployment.New)
	s := decoded(services[0], resources.Service.New)
	whole := func(obj client.Object) any {
		obj.SetManagedFields(obj.GetManagedFields()[1:2])
		return obj
	}
	trimmed := func(child resources.Child, obj client.Object) any {
		out, err := child.Trim(obj)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	return map[string]func() any{
		"Deployment/whole":   func() any { return whole(d()) },
		"Deployment/trimmed": func() any { return trimmed(resources.Deployment, d()) },
		"Service/whole":      func() any { return whole(s()) },
		"Service/trimmed":    func() any { return trimmed(resources.Service, s()) },
	}
}

// BenchmarkCachedChild reports the heap one cached Deployment and Service hold, whole and trimmed:
//
//	go test ./internal/resources -run '^$' -bench CachedChild -benchtime 10000x
func BenchmarkCachedChild(b *testing.B) {
	forms := cacheForms(b)
	for _, name := range []string{"Deployment/whole", "Deployment/trimmed", "Service/whole", "Service/trimmed"} {
		b.Run(name, func(b *testing.B) {
			b.ReportMetric(cachedBytes(b.N, forms[name]), "heap-B/object")
		})
	}
}

// The trimmed Deployment and Service keep to the heap they were measured to hold (BenchmarkCachedChild:
// about 3.0 and 1.1 KiB, against 6.9 and 2.6 KiB whole), with a tenth to spare: a field that slim
// starts to keep, or a digest entry that grows, shows here.
func TestCachedChildSize(t *testing.T) {
	forms := cacheForms(t)
	for name, limit := range map[string]float64{"Deployment/trimmed": 3400, "Service/trimmed": 1300} {
		if got := cachedBytes(2000, forms[name]); got > limit {
			t.Errorf("a cached %s holds %.0f B of heap, more than %.0f B", name, got, limit)
		}
	}
}
