package controller

import (
	"context"
	goruntime "runtime"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/served"
)

// toHub is app as the operator reads it (served.ToHub): the tests build WebApps in the version the
// API server serves.
func toHub(t testing.TB, app *webappv1.WebApp) *v1beta1.WebApp {
	t.Helper()
	hub, err := served.ToHub(app)
	if err != nil {
		t.Fatal(err)
	}
	return hub
}

// syncedWebApps returns the WebApps of a running informer, made by WebApps.NewInformer as the
// cache makes it (with CacheForm as its transform), that lists objs and then watches nothing.
func syncedWebApps(t *testing.T, objs ...*unstructured.Unstructured) *WebApps {
	t.Helper()
	w := &WebApps{}
	list := &unstructured.UnstructuredList{}
	for _, o := range objs {
		list.Items = append(list.Items, *o.DeepCopy())
	}
	lw := &toolscache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) { return list, nil },
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			return watch.NewFake(), nil
		},
	}
	informer := w.NewInformer(listThenWatch{lw}, NewWebAppObject(), 0, toolscache.Indexers{
		toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
	if err := informer.SetTransform(func(obj any) (any, error) {
		return CacheForm(obj.(*unstructured.Unstructured)), nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ListWebApps(); err == nil {
		t.Error("listed the WebApps of an informer that has not synced")
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go informer.RunWithContext(ctx)
	if !toolscache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("the informer never synced")
	}
	return w
}

// listThenWatch tells client-go's reflector to list, then watch: the fake watch never sends the
// bookmark that ends a streamed list.
type listThenWatch struct{ *toolscache.ListWatch }

func (listThenWatch) IsWatchListSemanticsUnSupported() bool { return true }

// The cache keeps a WebApp as its Go type, and one that does not decode as it came: reads tell
// the two apart, and a list gives what decodes of the second.
func TestWebAppsKeepsTheGoTypeAndTheUndecodable(t *testing.T) {
	good := unstructuredWebApp(t, "a", "good", webappv1.WebAppSpec{Image: "img", Replicas: ptr.To[int32](3)})
	badSpec := unstructuredWebApp(t, "a", "bad-spec", webappv1.WebAppSpec{Image: "img"})
	badSpec.Object["spec"].(map[string]any)["replicas"] = "many"
	badSpec.Object["status"] = map[string]any{"readyReplicas": int64(1)}
	badStatus := unstructuredWebApp(t, "b", "bad-status", webappv1.WebAppSpec{Image: "img", Replicas: ptr.To[int32](2)})
	badStatus.Object["status"] = map[string]any{"conditions": "not a list", "readyReplicas": int64(1)}
	w := syncedWebApps(t, good, badSpec, badStatus)

	if app, raw := w.get(types.NamespacedName{Namespace: "a", Name: "good"}); app == nil || raw != nil ||
		*app.Spec.Replicas != 3 {
		t.Errorf("a WebApp that decodes: %v, %v; want its Go type", app, raw)
	}
	for _, key := range []types.NamespacedName{{Namespace: "a", Name: "bad-spec"}, {Namespace: "b", Name: "bad-status"}} {
		if app, raw := w.get(key); app != nil || raw == nil {
			t.Errorf("%s does not decode, and reads as %v, %v; want the unstructured object", key, app, raw)
		}
	}
	if app, raw := w.get(types.NamespacedName{Namespace: "b", Name: "good"}); app != nil || raw != nil {
		t.Errorf("a WebApp of another namespace: %v, %v; want none", app, raw)
	}

	apps, err := w.ListWebApps()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*v1beta1.WebApp{}
	for _, app := range apps {
		byName[app.Name] = app
	}
	if len(apps) != 3 {
		t.Fatalf("listed %d WebApps, want 3", len(apps))
	}
	if st := byName["bad-spec"]; st.Namespace != "a" || st.Spec.Replicas != nil || st.Status.ReadyReplicas != 1 {
		t.Errorf("an undecodable spec lists as %+v; want its metadata and its status, no replicas", st)
	}
	if st := byName["bad-status"]; ptr.Deref(st.Spec.Replicas, 0) != 2 || st.Status.ReadyReplicas != 0 ||
		st.Status.Conditions != nil {
		t.Errorf("an undecodable status lists as %+v; want its replicas and no status", st)
	}
}

// Only the WebApp informers are read: the informer constructor leaves the others alone.
func TestWebAppsIgnoresOtherInformers(t *testing.T) {
	w := &WebApps{}
	indexers := toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc}
	pods := w.NewInformer(&toolscache.ListWatch{}, &corev1.Pod{}, time.Hour, indexers)
	services := &unstructured.Unstructured{}
	services.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Service"))
	w.NewInformer(&toolscache.ListWatch{}, services, time.Hour, indexers)
	if len(w.informers) != 0 {
		t.Errorf("%d informers of other kinds kept", len(w.informers))
	}
	if _, indexed := pods.GetIndexer().GetIndexers()[configRefIndex]; indexed || len(indexers) != 1 {
		t.Error("another kind's informer got the WebApps' index")
	}
	webApps := w.NewInformer(&toolscache.ListWatch{}, NewWebAppObject(), time.Hour, indexers)
	if _, indexed := webApps.GetIndexer().GetIndexers()[configRefIndex]; !indexed || !slices.Contains(w.informers, webApps) {
		t.Error("the WebApp informer is not kept with its index")
	}
}

// BenchmarkCachedWebApp reports the heap one cached WebApp holds, as the API server sends it
// (a bench WebApp with its Ready status, without the managed fields the cache drops), in the
// form the cache keeps (CacheForm) and as the unstructured object the cache kept before.
//
//	go test ./internal/controller -run '^$' -bench CachedWebApp -benchtime 10000x
func BenchmarkCachedWebApp(b *testing.B) {
	now := metav1.NewTime(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	cond := func(typ string, st metav1.ConditionStatus, msg string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: st, Reason: "Ready", Message: msg, LastTransitionTime: now, ObservedGeneration: 1}
	}
	app := &webappv1.WebApp{TypeMeta: metav1.TypeMeta{APIVersion: webappv1.GroupVersion.String(), Kind: "WebApp"},
		ObjectMeta: metav1.ObjectMeta{Name: "bench-01234", Namespace: "bench-1", UID: "0d4c6b52-8a1b-4c1e-9c9e-5a2f0f7c1a11",
			ResourceVersion: "123456", Generation: 1, CreationTimestamp: now},
		Spec: webappv1.WebAppSpec{Image: "bench.local/web:v1", Replicas: ptr.To[int32](1),
			DisruptionBudget: &webappv1.DisruptionBudget{Enabled: ptr.To(false)}},
		Status: webappv1.WebAppStatus{ObservedGeneration: 1, Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 1,
			UpdatedReplicas: 1, Selector: "app.kubernetes.io/instance=bench-01234,app.kubernetes.io/name=webapp",
			URL: "http://bench-01234.bench-1.svc:8080", Conditions: []metav1.Condition{
				cond(webappv1.ConditionReady, metav1.ConditionTrue, "1 of 1 replicas available and up to date"),
				cond(webappv1.ConditionStalled, metav1.ConditionFalse, ""),
				cond("Reconciling", metav1.ConditionFalse, "")}},
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(app)
	if err != nil {
		b.Fatal(err)
	}
	data, err := (&unstructured.Unstructured{Object: u}).MarshalJSON()
	if err != nil {
		b.Fatal(err)
	}
	decoded := func() *unstructured.Unstructured {
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(data); err != nil {
			b.Fatal(err)
		}
		return obj
	}
	for _, form := range []struct {
		name string
		keep func() any
	}{
		{"unstructured", func() any { return decoded() }},
		{"cache-form", func() any { return CacheForm(decoded()) }},
	} {
		b.Run(form.name, func(b *testing.B) {
			kept := make([]any, b.N)
			var before, after goruntime.MemStats
			goruntime.GC()
			goruntime.ReadMemStats(&before)
			for i := range kept {
				kept[i] = form.keep()
			}
			goruntime.GC()
			goruntime.ReadMemStats(&after)
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(b.N), "heap-B/WebApp")
			goruntime.KeepAlive(kept)
		})
	}
}
