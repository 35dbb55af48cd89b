package operator

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/webapp-operator/webapp-operator/internal/resources"
)

// unservedChildren asks the API server, once, which of the children that come from a CRD a cluster
// may lack (Child.MissingAPI) it does not serve. It runs before the manager is built because the
// manager's cache must not be told of a kind the cluster does not serve: its informer would fail to
// list forever, and the liveness probe with it (health.go).
//
// Only at start-up: a CRD installed later is not noticed until the operator restarts, which the
// WebApps waiting for it say in their status (RouteAPIMissing). Watching CRDs to restart the cache
// would need a cluster-wide permission on CustomResourceDefinitions the operator has no other use for.
func unservedChildren(cfg *rest.Config, scheme *runtime.Scheme) (map[string]bool, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the discovery client: %w", err)
	}
	return unserved(resources.All, scheme, dc.ServerResourcesForGroupVersion)
}

// unserved returns the kinds of children with a MissingAPI whose group-version's resources, as
// lookup lists them, do not include their kind. A group-version the server does not know is unserved;
// any other failure of lookup is returned: the operator must not decide that an API is missing
// because the API server failed to answer.
func unserved(children []resources.Child, scheme *runtime.Scheme,
	lookup func(groupVersion string) (*metav1.APIResourceList, error)) (map[string]bool, error) {
	out := map[string]bool{}
	for _, child := range children {
		if child.MissingAPI() == nil {
			continue
		}
		gvk, err := apiutil.GVKForObject(child.New(), scheme)
		if err != nil {
			return nil, err
		}
		list, err := lookup(gvk.GroupVersion().String())
		switch {
		case apierrors.IsNotFound(err):
			out[child.Kind()] = true
			continue
		case err != nil:
			return nil, fmt.Errorf("discovering %s: %w", gvk.GroupVersion(), err)
		}
		out[child.Kind()] = !servesKind(list, gvk.Kind)
	}
	return out, nil
}

func servesKind(list *metav1.APIResourceList, kind string) bool {
	for _, r := range list.APIResources {
		if r.Kind == kind {
			return true
		}
	}
	return false
}
