package resources

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// content is the object an apply configuration sends.
func content(t *testing.T, ac runtime.ApplyConfiguration) map[string]any {
	t.Helper()
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ac)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestHTTPRoute(t *testing.T) {
	gw := func(name string, extra ...string) map[string]any {
		ref := map[string]any{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": name}
		for i := 0; i+1 < len(extra); i += 2 {
			ref[extra[i]] = extra[i+1]
		}
		return ref
	}
	prefix := func(p string) map[string]any {
		return map[string]any{"path": map[string]any{"type": "PathPrefix", "value": p}}
	}
	backend := func(port int64) []any {
		return []any{map[string]any{"group": "", "kind": "Service", "name": "shop", "port": port, "weight": int64(1)}}
	}
	tests := []struct {
		name     string
		route    *webappv1.Route
		port     int32
		wantSpec map[string]any
		wantURL  string
	}{
		{name: "not asked for: no HTTPRoute"},
		{name: "one Gateway, one host, every path, the default Service port",
			route: &webappv1.Route{ParentRefs: []webappv1.RouteParentRef{{Name: "public"}}, Hostnames: []string{"shop.example.com"}},
			wantSpec: map[string]any{"parentRefs": []any{gw("public")}, "hostnames": []any{"shop.example.com"},
				"rules": []any{map[string]any{"matches": []any{prefix("/")}, "backendRefs": backend(80)}}},
			wantURL: "http://shop.example.com/"},
		{name: "a listener of a Gateway elsewhere, wildcard first, paths, a Service port",
			route: &webappv1.Route{ParentRefs: []webappv1.RouteParentRef{{Name: "traefik", Namespace: "traefik", SectionName: "web"}},
				Hostnames: []string{"*.example.com", "shop.example.com"}, Paths: []string{"/shop", "/api"}},
			port: 8080,
			wantSpec: map[string]any{"parentRefs": []any{gw("traefik", "namespace", "traefik", "sectionName", "web")},
				"hostnames": []any{"*.example.com", "shop.example.com"},
				"rules":     []any{map[string]any{"matches": []any{prefix("/shop"), prefix("/api")}, "backendRefs": backend(8080)}}},
			wantURL: "http://shop.example.com/shop"},
		{name: "only a wildcard host name: no URL to name",
			route: &webappv1.Route{ParentRefs: []webappv1.RouteParentRef{{Name: "public"}}, Hostnames: []string{"*.example.com"}},
			wantSpec: map[string]any{"parentRefs": []any{gw("public")}, "hostnames": []any{"*.example.com"},
				"rules": []any{map[string]any{"matches": []any{prefix("/")}, "backendRefs": backend(80)}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := newApp(func(a *webappv1.WebApp) { a.Spec.Route = tt.route; a.Spec.Service.Port = tt.port })
			ac := mustRender(t, HTTPRoute, app)
			expect(t, "url", RouteURL(hub(t, app)), tt.wantURL)
			if tt.route == nil {
				if ac != nil {
					t.Fatalf("an HTTPRoute was rendered: %v", ac)
				}
				return
			}
			u := &unstructured.Unstructured{Object: content(t, ac)}
			expect(t, "kind", u.GroupVersionKind(), HTTPRouteGVK)
			expect(t, "name", u.GetNamespace()+"/"+u.GetName(), "team-a/shop")
			expect(t, "spec", u.Object["spec"], any(tt.wantSpec))
			expect(t, "labels", u.GetLabels(), objectLabels(hub(t, app)))
			expect(t, "controller", metav1.IsControlledBy(u, app), true)
		})
	}
}

func TestHTTPRouteHealth(t *testing.T) {
	app := newApp(func(a *webappv1.WebApp) {
		a.Spec.Route = &webappv1.Route{Hostnames: []string{"shop.example.com"}, Paths: []string{"/shop"},
			ParentRefs: []webappv1.RouteParentRef{{Name: "public"}, {Name: "traefik", Namespace: "traefik", SectionName: "web"}}}
	})
	cond := func(t, s string, gen int64) any {
		return map[string]any{"type": t, "status": s, "observedGeneration": gen, "reason": "R", "message": "m",
			"lastTransitionTime": "2026-01-01T00:00:00Z"}
	}
	accepted := func(gen int64) []any { return []any{cond("Accepted", "True", gen), cond("ResolvedRefs", "True", gen)} }
	public := map[string]any{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "public"}
	traefik := map[string]any{"name": "traefik", "namespace": "traefik", "sectionName": "web"}
	parent := func(ref map[string]any, conds []any) any {
		return map[string]any{"parentRef": ref, "controllerName": "example.com/gw", "conditions": conds}
	}
	route := func(parents ...any) *unstructured.Unstructured {
		u := newUnstructured(HTTPRouteGVK)
		u.SetNamespace("team-a")
		u.SetGeneration(3)
		if parents != nil {
			u.Object["status"] = map[string]any{"parents": parents}
		}
		return u
	}
	pending := func(msg string) status.Health {
		return status.Health{Kind: "HTTPRoute", Reason: status.ReasonRoutePending, Message: msg}
	}
	tests := []struct {
		name string
		live *unstructured.Unstructured
		want status.Health
	}{
		{"no status yet", route(),
			pending("the HTTPRoute is not accepted by Gateway team-a/public yet: its controller has not reported on the route")},
		{"the second Gateway has not reported", route(parent(public, accepted(3))),
			pending("the HTTPRoute is not accepted by Gateway traefik/traefik (listener web) yet: " +
				"its controller has not reported on the route")},
		{"another listener of the second Gateway is no answer",
			route(parent(public, accepted(3)), parent(map[string]any{"name": "traefik", "namespace": "traefik"}, accepted(3))),
			pending("the HTTPRoute is not accepted by Gateway traefik/traefik (listener web) yet: " +
				"its controller has not reported on the route")},
		{"refused", route(parent(public, []any{cond("Accepted", "False", 3)})),
			pending("the HTTPRoute is not accepted by Gateway team-a/public yet: Accepted is False (R: m)")},
		{"accepted for an older generation", route(parent(public, accepted(2)), parent(traefik, accepted(3))),
			pending("the HTTPRoute is not accepted by Gateway team-a/public yet: " +
				"Accepted is not reported for the route's generation 3")},
		{"the backend unresolved",
			route(parent(public, accepted(3)), parent(traefik, []any{cond("Accepted", "True", 3), cond("ResolvedRefs", "False", 3)})),
			pending("the HTTPRoute is not accepted by Gateway traefik/traefik (listener web) yet: ResolvedRefs is False (R: m)")},
		{"one of two controllers of a parent accepts it",
			route(parent(public, []any{cond("Accepted", "False", 3)}), parent(public, accepted(3)), parent(traefik, accepted(3))),
			status.Health{Kind: "HTTPRoute", Ready: true, Reason: status.ReasonReady, URL: "http://shop.example.com/shop",
				Message: "the HTTPRoute is accepted by Gateway team-a/public and Gateway traefik/traefik (listener web)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, "health", HTTPRoute.Health(hub(t, app), tt.live), tt.want)
		})
	}
}
