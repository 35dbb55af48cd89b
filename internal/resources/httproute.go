package resources

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// The HTTPRoute exposes the WebApp through the Gateways it names (the Gateway API, the successor of
// Ingress). The operator creates, patches and deletes it like the Ingress, and reads, never writes,
// the status the Gateways' controllers give it.
//
// It is handled as an unstructured object, not through sigs.k8s.io/gateway-api's Go types: that
// module would bring its own copies of half of the Kubernetes libraries into the operator's build
// for the dozen fields used here, and the API is a CRD that a cluster may not have anyway.
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=httproutes,verbs=get;list;watch;create;patch;delete

// HTTPRouteGVK is the Gateway API kind the operator writes: v1, the version every conformant
// implementation serves since Gateway API v1.0.
var HTTPRouteGVK = schema.GroupVersionKind{Group: gatewayGroup, Version: "v1", Kind: "HTTPRoute"}

const gatewayGroup = "gateway.networking.k8s.io"

// HTTPRoute is ready once every Gateway it names has accepted it and resolved its backend.
var HTTPRoute Child = crdKind(HTTPRouteGVK, "the Gateway API", "spec.exposure.route", status.ReasonRouteAPIMissing,
	kind[*unstructured.Unstructured, runtime.ApplyConfiguration]{
		wanted: func(app *v1beta1.WebApp) bool { return app.Spec.Exposure.Route != nil },
		render: renderHTTPRoute,
		health: httpRouteHealth,
	})

// renderHTTPRoute renders the HTTPRoute of app's host names and paths: one rule whose matches are
// the path prefixes, to the WebApp's Service port. Within the route's lists, which the CRD declares
// atomic, it spells out the CRD's defaults (group, kind, weight): our field manager owns each list
// whole, as the API server stores it, so a default left out would read as drift on every pass.
func renderHTTPRoute(app *v1beta1.WebApp) (runtime.ApplyConfiguration, error) {
	r := app.Spec.Exposure.Route
	parents := make([]any, 0, len(r.ParentRefs))
	for _, p := range r.ParentRefs {
		ref := map[string]any{"group": gatewayGroup, "kind": "Gateway", "name": p.Name}
		if p.Namespace != "" {
			ref["namespace"] = p.Namespace
		}
		if p.SectionName != "" {
			ref["sectionName"] = p.SectionName
		}
		parents = append(parents, ref)
	}
	hostnames := make([]any, 0, len(r.Hostnames))
	for _, h := range r.Hostnames {
		hostnames = append(hostnames, h)
	}
	paths := routePaths(r)
	matches := make([]any, 0, len(paths))
	for _, path := range paths {
		matches = append(matches, map[string]any{"path": map[string]any{"type": "PathPrefix", "value": path}})
	}
	backend := map[string]any{"group": "", "kind": "Service", "name": app.Name,
		"port": int64(servicePort(app)), "weight": int64(1)}
	u := newUnstructured(HTTPRouteGVK)
	u.SetName(app.Name)
	u.SetNamespace(app.Namespace)
	u.SetLabels(objectLabels(app))
	ref := ownerReference(app)
	u.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: *ref.APIVersion, Kind: *ref.Kind, Name: *ref.Name,
		UID: *ref.UID, Controller: ref.Controller, BlockOwnerDeletion: ref.BlockOwnerDeletion}})
	u.Object["spec"] = map[string]any{
		"parentRefs": parents,
		"hostnames":  hostnames,
		"rules":      []any{map[string]any{"matches": matches, "backendRefs": []any{backend}}},
	}
	return client.ApplyConfigurationFromUnstructured(u), nil
}

func routePaths(r *v1beta1.Route) []string {
	if len(r.Paths) == 0 {
		return []string{"/"}
	}
	return r.Paths
}

// httpRouteHealth: ready, with the WebApp's external URL, once each parent the route names reports
// it Accepted and its references resolved, both for the route's current generation (a parent's
// condition about an older spec says nothing about this one).
func httpRouteHealth(app *v1beta1.WebApp, route *unstructured.Unstructured) status.Health {
	if app.Spec.Exposure.Route == nil {
		// not called so: a WebApp that asks for no route has no HTTPRoute to read
		return status.Health{Reason: status.ReasonRoutePending, Message: "the WebApp asks for no route"}
	}
	var st routeStatus
	if s, ok := route.Object["status"].(map[string]any); ok {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(s, &st); err != nil {
			return status.Health{Reason: status.ReasonRoutePending, Message: fmt.Sprintf("the HTTPRoute's status is unreadable: %v", err)}
		}
	}
	var names []string
	for _, p := range app.Spec.Exposure.Route.ParentRefs {
		name := parentName(p, route.GetNamespace())
		names = append(names, name)
		if missing := parentMissing(p, route.GetNamespace(), route.GetGeneration(), st.Parents); missing != "" {
			return status.Health{Reason: status.ReasonRoutePending, Message: fmt.Sprintf("the HTTPRoute is not accepted by %s yet: %s", name, missing)}
		}
	}
	return status.Health{Ready: true, Reason: status.ReasonReady, URL: RouteURL(app),
		Message: "the HTTPRoute is accepted by " + strings.Join(names, " and ")}
}

// routeStatus is the part of an HTTPRoute's status the operator reads.
type routeStatus struct {
	Parents []routeParentStatus `json:"parents"`
}

type routeParentStatus struct {
	ParentRef struct {
		Group       *string `json:"group"`
		Kind        *string `json:"kind"`
		Namespace   *string `json:"namespace"`
		Name        string  `json:"name"`
		SectionName *string `json:"sectionName"`
	} `json:"parentRef"`
	ControllerName string             `json:"controllerName"`
	Conditions     []metav1.Condition `json:"conditions"`
}

// parentMissing says what parent p has not reported about the route at generation gen, or "" when it
// accepted it and resolved its references. Several controllers may report on one parent; any that
// reports both is enough.
func parentMissing(p v1beta1.RouteParentRef, ns string, gen int64, parents []routeParentStatus) string {
	missing := "its controller has not reported on the route"
	for _, ps := range parents {
		if !sameParent(p, ns, ps) {
			continue
		}
		missing = ""
		for _, t := range []string{"Accepted", "ResolvedRefs"} {
			if m := conditionMissing(ps.Conditions, t, gen); m != "" {
				missing = m
				break
			}
		}
		if missing == "" {
			return ""
		}
	}
	return missing
}

func conditionMissing(conds []metav1.Condition, condType string, gen int64) string {
	c := meta.FindStatusCondition(conds, condType)
	switch {
	case c == nil || c.ObservedGeneration != gen:
		return fmt.Sprintf("%s is not reported for the route's generation %d", condType, gen)
	case c.Status != metav1.ConditionTrue:
		return fmt.Sprintf("%s is %s (%s: %s)", condType, c.Status, c.Reason, c.Message)
	}
	return ""
}

// sameParent: the status entry is about the Gateway (and listener) p names. The implementation
// echoes the parentRef it was given, defaults included.
func sameParent(p v1beta1.RouteParentRef, ns string, ps routeParentStatus) bool {
	ref := ps.ParentRef
	return ptr.Deref(ref.Group, gatewayGroup) == gatewayGroup && ptr.Deref(ref.Kind, "Gateway") == "Gateway" &&
		ref.Name == p.Name && ptr.Deref(ref.Namespace, ns) == orDefault(p.Namespace, ns) &&
		ptr.Deref(ref.SectionName, "") == p.SectionName
}

func parentName(p v1beta1.RouteParentRef, ns string) string {
	name := fmt.Sprintf("Gateway %s/%s", orDefault(p.Namespace, ns), p.Name)
	if p.SectionName != "" {
		name += fmt.Sprintf(" (listener %s)", p.SectionName)
	}
	return name
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// RouteURL is where app answers through its HTTPRoute: its first host name that is not a wildcard
// and its first path. The Gateway API leaves TLS to the Gateway's listeners, which the route does not
// see, so the URL is http. It is "" when app has no route or only wildcard host names.
func RouteURL(app *v1beta1.WebApp) string {
	r := app.Spec.Exposure.Route
	if r == nil {
		return ""
	}
	for _, host := range r.Hostnames {
		if !strings.HasPrefix(host, "*.") {
			return "http://" + host + routePaths(r)[0]
		}
	}
	return ""
}
