package controller

import (
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/webapp-operator/webapp-operator/internal/fairqueue"
)

// Watch says how the controller hears of a kind it watches (operator's table of watched kinds).
type Watch int

const (
	// WatchWebApp: the WebApps themselves, on a change of their generation.
	WatchWebApp Watch = iota
	// WatchOwned: a child, mapped to the WebApp that controls it.
	WatchOwned
	// WatchPods: the pods of the WebApps' Deployments, mapped through their instance label.
	WatchPods
	// WatchConfig: the ConfigMaps or Secrets the pods read, metadata only, mapped through the
	// WebApps' index of references (webapps.go).
	WatchConfig
)

// Watched is one kind the controller watches, and how.
type Watched struct {
	Object client.Object
	How    Watch
}

// SetupWithManager registers the controller with a watch of each kind in watched. Children are
// watched through their owner references, so a change to (or the deletion of) any child re-triggers
// its WebApp: no polling.
func (r *WebAppReconciler) SetupWithManager(mgr ctrl.Manager, watched []Watched) error {
	b := ctrl.NewControllerManagedBy(mgr)
	for _, w := range watched {
		switch w.How {
		case WatchWebApp:
			// Status writes do not bump the generation: without this predicate every status patch
			// would trigger one more (no-op) pass.
			b = b.For(w.Object, builder.WithPredicates(predicate.GenerationChangedPredicate{}))
		case WatchOwned:
			b = b.Owns(w.Object)
		case WatchPods:
			// Pods belong to ReplicaSets, not to the WebApp: map them back through the instance
			// label, so a pod that starts failing (or recovers) updates the WebApp's status.
			b = b.Watches(w.Object, handler.EnqueueRequestsFromMapFunc(podToWebApp))
		case WatchConfig:
			// a resync's update, with the same resourceVersion, changes nothing
			kind := w.Object.GetObjectKind().GroupVersionKind().Kind
			b = b.WatchesMetadata(w.Object, handler.EnqueueRequestsFromMapFunc(r.configToWebApps(kind)),
				builder.WithPredicates(predicate.ResourceVersionChangedPredicate{}))
		}
	}
	return b.
		// The fair queue serves namespaces in turn: a lone edit does not wait behind a mass change
		// in other namespaces (fairqueue).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.MaxConcurrentReconciles, NewQueue: fairqueue.New}).
		Named("webapp").
		Complete(r)
}
