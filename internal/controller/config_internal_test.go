package controller

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
)

func unstructuredWebApp(t *testing.T, ns, name string, spec webappv1.WebAppSpec) *unstructured.Unstructured {
	t.Helper()
	app := &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: spec}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(app)
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{Object: u}
	obj.SetGroupVersionKind(webappv1.GroupVersion.WithKind("WebApp"))
	return obj
}

// A ConfigMap or Secret event is mapped to the WebApps of its namespace that read it, and to no other.
func TestConfigToWebApps(t *testing.T) {
	envFrom := func(cm, secret string) webappv1.WebAppSpec {
		spec := webappv1.WebAppSpec{Image: "img"}
		if cm != "" {
			spec.EnvFrom = append(spec.EnvFrom, webappv1.EnvFromSource{ConfigMapRef: &webappv1.ObjectReference{Name: cm}})
		}
		if secret != "" {
			spec.Volumes = []webappv1.Volume{{Name: "s", MountPath: "/s", Secret: &webappv1.SecretVolume{Name: secret}}}
		}
		return spec
	}
	// one that does not decode (an older CRD admitted it) is in no entry of the index: its own pass
	// reports it
	undecodable := unstructuredWebApp(t, "a", "undecodable", envFrom("shop", ""))
	undecodable.Object["spec"].(map[string]any)["replicas"] = "many"
	if keys, _ := indexConfigRefs(CacheForm(undecodable)); keys != nil {
		t.Errorf("an undecodable WebApp is indexed under %v", keys)
	}
	if keys, _ := indexConfigRefs(CacheForm(unstructuredWebApp(t, "a", "shop", envFrom("shop", "token")))); !slices.Equal(keys,
		[]string{"a/ConfigMap/shop", "a/Secret/token"}) {
		t.Errorf("indexed under %v", keys)
	}
	r := &WebAppReconciler{WebApps: syncedWebApps(t,
		undecodable,
		unstructuredWebApp(t, "a", "shop", envFrom("shop", "token")),
		unstructuredWebApp(t, "a", "blog", envFrom("shop", "")),
		unstructuredWebApp(t, "a", "plain", envFrom("", "")),
		unstructuredWebApp(t, "b", "shop", envFrom("shop", "")),
	)}
	for _, tc := range []struct {
		kind, ns, name string
		want           []string
	}{
		{resources.KindConfigMap, "a", "shop", []string{"a/blog", "a/shop"}},
		{resources.KindSecret, "a", "token", []string{"a/shop"}},
		{resources.KindSecret, "a", "shop", nil}, // a Secret is not the ConfigMap of the same name
		{resources.KindConfigMap, "a", "token", nil},
		{resources.KindConfigMap, "a", "unrelated", nil},
		{resources.KindConfigMap, "b", "shop", []string{"b/shop"}},
		{resources.KindConfigMap, "c", "shop", nil},
	} {
		obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: tc.ns, Name: tc.name}}
		obj.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind(tc.kind))
		reqs := r.configToWebApps(tc.kind)(context.Background(), obj)
		got := make([]string, 0, len(reqs))
		for _, req := range reqs {
			got = append(got, req.String())
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) && len(got)+len(tc.want) > 0 {
			t.Errorf("%s %s/%s maps to %v, want %v", tc.kind, tc.ns, tc.name, got, tc.want)
		}
	}
}
