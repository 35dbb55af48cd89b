package resources

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"sigs.k8s.io/yaml"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/served"
)

// readmeGolden is the Deployment that the README's WebApp example renders to, less the security
// defaults: optional fields must not change what the common case runs. A change of it is a decision:
// each running WebApp gets it only with its next change (the upgrade policy, docs/design.md).
const readmeGolden = "testdata/readme-deployment.json"

// TestREADMEExampleRendersTheSameDeployment renders the README's first WebApp as the operator reads
// it (the CRD's defaults applied, as the API server does, then served.Decode) and compares it with
// readmeGolden, without the security defaults (the pod's and the container's securityContext, and
// automountServiceAccountToken), which TestPodSecurity covers. UPDATE_GOLDEN=1 rewrites the golden.
func TestREADMEExampleRendersTheSameDeployment(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(apiVersion: apps.webapp-operator.io/v1beta1\nkind: WebApp\n.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no v1beta1 WebApp example")
	}
	if err := yaml.UnmarshalStrict(m[1], &v1beta1.WebApp{}); err != nil {
		t.Fatalf("the README's example: %v", err)
	}
	var obj map[string]any
	if err := yaml.Unmarshal(m[1], &obj); err != nil {
		t.Fatal(err)
	}
	structuraldefaulting.Default(obj, crdSchema(t, v1beta1.GroupVersion.Version))
	app, err := served.Decode(obj)
	if err != nil {
		t.Fatal(err)
	}
	app.Namespace, app.UID = "default", "uid-1"
	ac, err := renderDeployment(app)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(ac)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if pod, ok := dig(got, "spec", "template", "spec"); ok {
		delete(pod, "securityContext")
		delete(pod, "automountServiceAccountToken")
		for _, c := range pod["containers"].([]any) {
			delete(c.(map[string]any), "securityContext")
		}
	}
	gotJSON, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	gotJSON = append(gotJSON, '\n')
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(readmeGolden, gotJSON, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(readmeGolden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gotJSON, want) {
		t.Errorf("the README's WebApp renders another Deployment than before, security defaults aside:\n got: %s\nwant: %s",
			gotJSON, want)
	}
}

// crdSchema is the structural schema of version in the CRD the operator installs: what the API server
// defaults a WebApp of that version with.
func crdSchema(t *testing.T, version string) *structuralschema.Structural {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "config", "crd", "bases", "apps.webapp-operator.io_webapps.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		t.Fatal(err)
	}
	for _, v := range crd.Spec.Versions {
		if v.Name != version {
			continue
		}
		internal := &apiextensionsinternal.JSONSchemaProps{}
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(
			v.Schema.OpenAPIV3Schema, internal, nil); err != nil {
			t.Fatal(err)
		}
		s, err := structuralschema.NewStructural(internal)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	t.Fatalf("the CRD has no version %s", version)
	return nil
}

// dig returns the object at path in o.
func dig(o map[string]any, path ...string) (map[string]any, bool) {
	for _, k := range path {
		next, ok := o[k].(map[string]any)
		if !ok {
			return nil, false
		}
		o = next
	}
	return o, true
}
