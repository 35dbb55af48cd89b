package controller

import (
	"errors"
	"maps"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/served"
)

// WebApps reads the WebApps from the operator's cache, which holds each as the hub's Go type, or unstructured
// when it does not decode (docs/design.md, Undecodable WebApps). controller-runtime's cache reader
// cannot return such a mix, so this reads the informers' indexers: NewInformer hands it the WebApp
// informers as they are made, one for the cluster or one per watched namespace.
//
// What the reads return is the cache's own object: callers must not modify it.
type WebApps struct {
	mu        sync.RWMutex
	informers []toolscache.SharedIndexInformer
}

// NewInformer is the cache's informer constructor (cache.Options.NewInformer): client-go's, which
// also keeps the WebApp informers for the reads, with their index of configuration references.
func (w *WebApps) NewInformer(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration,
	indexers toolscache.Indexers) toolscache.SharedIndexInformer {
	u, isWebApp := obj.(*unstructured.Unstructured)
	isWebApp = isWebApp && u.GroupVersionKind().GroupKind() == served.GroupVersion.WithKind(served.Kind).GroupKind()
	if isWebApp {
		indexers = maps.Clone(indexers)
		indexers[configRefIndex] = indexConfigRefs
	}
	informer := toolscache.NewSharedIndexInformer(lw, obj, resync, indexers)
	if isWebApp {
		w.mu.Lock()
		w.informers = append(w.informers, informer)
		w.mu.Unlock()
	}
	return informer
}

// CacheForm is what the cache keeps of a WebApp: the hub's Go type, v1beta1 (decode), or the
// unstructured object when it does not decode (its pass reports why).
func CacheForm(u *unstructured.Unstructured) runtime.Object {
	if app, err := decode(u); err == nil {
		return app
	}
	return u
}

// get returns the cached WebApp of key: decoded, or else unstructured (undecodable); both nil when
// the cache has none.
func (w *WebApps) get(key types.NamespacedName) (*v1beta1.WebApp, *unstructured.Unstructured) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	for _, inf := range w.informers {
		obj, found, err := inf.GetIndexer().GetByKey(key.String())
		if err != nil || !found { // a key function's error: a store keyed by namespace/name has none
			continue
		}
		switch o := obj.(type) {
		case *v1beta1.WebApp:
			return o, nil
		case *unstructured.Unstructured:
			return nil, o
		}
	}
	return nil, nil
}

// byConfigRef returns the WebApps of namespace whose pods read ref (a resources.ConfigKey's String()).
func (w *WebApps) byConfigRef(namespace, ref string) ([]types.NamespacedName, error) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	var out []types.NamespacedName
	for _, inf := range w.informers {
		objs, err := inf.GetIndexer().ByIndex(configRefIndex, namespace+"/"+ref)
		if err != nil {
			return nil, err
		}
		for _, obj := range objs {
			if app, ok := obj.(*v1beta1.WebApp); ok {
				out = append(out, types.NamespacedName{Namespace: app.Namespace, Name: app.Name})
			}
		}
	}
	return out, nil
}

// errNotSynced is the error of a list before the caches have synced: it would be incomplete.
var errNotSynced = errors.New("the WebApp cache has not synced yet")

// ListWebApps returns every cached WebApp. One that does not decode comes with its metadata, the
// status it has and, when it is a number, spec.replicas: what the metrics report of it.
func (w *WebApps) ListWebApps() ([]*v1beta1.WebApp, error) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if len(w.informers) == 0 {
		return nil, errNotSynced
	}
	var out []*v1beta1.WebApp
	for _, inf := range w.informers {
		if !inf.HasSynced() {
			return nil, errNotSynced
		}
		for _, obj := range inf.GetIndexer().List() {
			switch o := obj.(type) {
			case *v1beta1.WebApp:
				out = append(out, o)
			case *unstructured.Unstructured:
				out = append(out, undecodableStub(o))
			}
		}
	}
	return out, nil
}

// undecodableStub is a WebApp with only what decodes of u: its metadata, its status (when that
// decodes) and its spec.replicas (when that is a number). Enough to report it and to write its status.
func undecodableStub(u *unstructured.Unstructured) *v1beta1.WebApp {
	app := &v1beta1.WebApp{}
	app.Namespace, app.Name, app.UID = u.GetNamespace(), u.GetName(), u.GetUID()
	app.Generation, app.ResourceVersion = u.GetGeneration(), u.GetResourceVersion()
	if st, ok := u.Object["status"].(map[string]any); ok {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(st, &app.Status); err != nil {
			app.Status = v1beta1.WebAppStatus{}
		}
	}
	if n, found, err := unstructured.NestedInt64(u.Object, "spec", "replicas"); found && err == nil && n == int64(int32(n)) {
		app.Spec.Replicas = ptr.To(int32(n))
	}
	return app
}
