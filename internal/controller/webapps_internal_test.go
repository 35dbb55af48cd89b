package controller

import (
	"context"
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
)

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
	byName := map[string]*webappv1.WebApp{}
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
