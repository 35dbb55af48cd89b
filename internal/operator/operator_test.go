package operator

import (
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func TestParseNamespaces(t *testing.T) {
	tests := map[string][]string{
		"":                nil, // OLM's AllNamespaces: the whole cluster
		"team-a":          {"team-a"},
		"team-a,team-b":   {"team-a", "team-b"},
		" team-a , ,b , ": {"team-a", "b"},
	}
	for in, want := range tests {
		if got := ParseNamespaces(in); !reflect.DeepEqual(got, want) {
			t.Errorf("ParseNamespaces(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCacheIsScopedToOurChildrenAndNamespaces(t *testing.T) {
	opts := cacheOptions([]string{"a", "b"})
	if len(opts.DefaultNamespaces) != 2 {
		t.Errorf("namespaces %v, want a and b", opts.DefaultNamespaces)
	}
	ours := labels.Set{"app.kubernetes.io/managed-by": "webapp-operator"}
	foreign := labels.Set{"app.kubernetes.io/managed-by": "helm"}
	ourPod := labels.Set{"app.kubernetes.io/name": "webapp", "app.kubernetes.io/instance": "shop"}
	foreignPod := labels.Set{"app.kubernetes.io/name": "nginx"}
	for obj, by := range opts.ByObject {
		want, notWant := ours, foreign
		switch obj.(type) {
		case *appsv1.Deployment, *corev1.Service:
		case *corev1.Pod:
			want, notWant = ourPod, foreignPod
		default:
			t.Errorf("unexpected cache scoping for %T", obj)
		}
		if by.Label == nil || !by.Label.Matches(want) || by.Label.Matches(notWant) || by.Label.Matches(labels.Set{}) {
			t.Errorf("%T cache selector %v does not select exactly our objects", obj, by.Label)
		}
	}
	if len(opts.ByObject) != 3 {
		t.Errorf("want Deployments, Services and Pods scoped, got %d kinds", len(opts.ByObject))
	}
	if all := cacheOptions(nil); all.DefaultNamespaces != nil {
		t.Errorf("no namespaces must mean the whole cluster, got %v", all.DefaultNamespaces)
	}
}
