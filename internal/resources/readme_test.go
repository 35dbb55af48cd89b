package resources

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/served"
)

// readmeGolden is the Deployment that the README's WebApp example renders to, less the security
// defaults: optional fields must not change what the common case runs. A change of it is a decision:
// each running WebApp gets it only with its next change (the upgrade policy, docs/design.md).
const readmeGolden = "testdata/readme-deployment.json"

// TestREADMEExampleRendersTheSameDeployment renders the README's first WebApp and compares it with
// readmeGolden, without the security defaults (the pod's and the container's securityContext, and
// automountServiceAccountToken), which TestPodSecurity covers. UPDATE_GOLDEN=1 rewrites the golden.
func TestREADMEExampleRendersTheSameDeployment(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(apiVersion: apps.webapp-operator.io/v1beta1\nkind: WebApp\n.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no WebApp example")
	}
	app := &v1beta1.WebApp{}
	if err := yaml.UnmarshalStrict(m[1], app); err != nil {
		t.Fatalf("the README's example: %v", err)
	}
	app.Namespace, app.UID = "default", "uid-1"
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(app)
	if err != nil {
		t.Fatal(err)
	}
	read, err := served.Decode(obj) // as the operator reads it
	if err != nil {
		t.Fatal(err)
	}
	ac, err := renderDeployment(read)
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
