package controller

import (
	"context"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/served"
)

func unstructuredWebApp(t *testing.T, ns, name string, spec webappv1.WebAppSpec) *unstructured.Unstructured {
	t.Helper()
	app := &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: spec}
	hub := &v1beta1.WebApp{}
	if err := app.ConvertTo(hub); err != nil {
		t.Fatal(err)
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(hub)
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{Object: u}
	obj.SetGroupVersionKind(served.GroupVersion.WithKind(served.Kind))
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

// TestLegacyRevisionStaysUntilTheDataChanges: the unkeyed revision an earlier operator published for
// pods that read a Secret stays while it is that of the data (no roll on upgrade); a change of the
// data brings the keyed one, which then stays.
func TestLegacyRevisionStaysUntilTheDataChanges(t *testing.T) {
	ctx := context.Background()
	app := &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "shop", UID: "app-uid"},
		Spec: webappv1.WebAppSpec{Image: "img", Env: []webappv1.EnvVar{{Name: "PW", ValueFrom: &webappv1.EnvVarSource{
			SecretKeyRef: &webappv1.KeySelector{Name: "token", Key: "pw"}}}}}}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "token"}, Data: map[string][]byte{"pw": []byte("1234")}}
	refs := resources.ConfigRefs(toHub(t, app))
	revision := func(data string, key []byte) string {
		d := resources.ConfigDigest(nil, map[string][]byte{"pw": []byte(data)})
		return resources.ConfigRevision(refs, map[resources.ConfigKey]string{refs[0].ConfigKey: d}, key)
	}
	key := []byte("installation key")
	deployment := func(published string) *appsv1.Deployment {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "shop"}}
		d.Spec.Template.Annotations = map[string]string{webappv1.ConfigRevisionAnnotation: published}
		if err := controllerutil.SetControllerReference(app, d, testScheme(t)); err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, tc := range []struct {
		name, published, data, want string
	}{
		{"an earlier operator's revision, the data unchanged", revision("1234", nil), "1234", revision("1234", nil)},
		{"an earlier operator's revision, the data changed since", revision("1234", nil), "5678", revision("5678", key)},
		{"the keyed revision, the data unchanged", revision("5678", key), "5678", revision("5678", key)},
		{"the keyed revision, the data back to the old value", revision("5678", key), "1234", revision("1234", key)},
		{"no Deployment yet", "", "1234", revision("1234", key)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := secret.DeepCopy()
			s.Data["pw"] = []byte(tc.data)
			var live *appsv1.Deployment
			if tc.published != "" {
				live = deployment(tc.published)
			}
			c := fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(s).Build()
			r := &WebAppReconciler{Client: c, APIReader: c, Config: ConfigOptions{Secrets: SecretRolloutsOn, Key: key}}
			got, err := r.configRevision(ctx, toHub(t, app), live)
			if err != nil || got != tc.want {
				t.Errorf("revision %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func testScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := webappv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := v1beta1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}
