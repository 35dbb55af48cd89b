package bundle_test

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apimachinery/pkg/util/version"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"sigs.k8s.io/yaml"
)

// TestCELRulesCompileOnTheMinimumKubernetes compiles every validation rule of the bundled CRD the
// way an API server of the CSV's minKubeVersion compiles the rules of a new CRD: with the CEL
// libraries of the version before it (an API server only takes libraries in new expressions one
// release after it introduced them, so that it can be rolled back). A rule that needs a newer
// library would make that API server refuse the CRD, and OLM's install fail.
func TestCELRulesCompileOnTheMinimumKubernetes(t *testing.T) {
	minKube := version.MustParseGeneric(loadCSV(t).Spec.MinKubeVersion)
	compat := version.MajorMinor(minKube.Major(), minKube.Minor()-1)
	envSet := environment.MustBaseEnvSet(compat)

	// The version before compat must refuse at least one rule, or this test could not fail.
	older := environment.MustBaseEnvSet(version.MajorMinor(compat.Major(), compat.Minor()-1))

	var refusedByOlder int
	for _, crd := range bundleCRDs(t) {
		for _, v := range crd.Spec.Versions {
			s := structural(t, v.Schema.OpenAPIV3Schema)
			walkStructural(s, "", func(path string, node *structuralschema.Structural) {
				root := path == "" // the CR itself: apiVersion, kind and metadata are in scope there
				for i, res := range compile(t, node, root, envSet) {
					if res.Error != nil {
						t.Errorf("%s %s rule %d does not compile for Kubernetes %s: %v", crd.Name, path, i, minKube, res.Error)
					}
				}
				for _, res := range compile(t, node, root, older) {
					if res.Error != nil {
						refusedByOlder++
					}
				}
			})
		}
	}
	if refusedByOlder == 0 {
		t.Errorf("every rule also compiles one release earlier: minKubeVersion %s could be lowered", minKube)
	}
}

func compile(t *testing.T, s *structuralschema.Structural, root bool,
	envSet *environment.EnvSet) []cel.CompilationResult {
	t.Helper()
	if len(s.XValidations) == 0 {
		return nil
	}
	results, err := cel.Compile(s, model.SchemaDeclType(s, root), celconfig.PerCallLimit, envSet,
		cel.NewExpressionsEnvLoader())
	if err != nil {
		t.Fatal(err)
	}
	return results
}

func bundleCRDs(t *testing.T) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(bundleDir, "manifests", "apps.webapp-operator.io_*.yaml"))
	must(t, err)
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(paths))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		must(t, err)
		crd := &apiextensionsv1.CustomResourceDefinition{}
		must(t, yaml.Unmarshal(data, crd))
		out = append(out, crd)
	}
	if len(out) == 0 {
		t.Fatal("no CRD in the bundle")
	}
	return out
}

func structural(t *testing.T, v1 *apiextensionsv1.JSONSchemaProps) *structuralschema.Structural {
	t.Helper()
	internal := &apiextensions.JSONSchemaProps{}
	must(t, apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v1, internal, nil))
	s, err := structuralschema.NewStructural(internal)
	must(t, err)
	return s
}

func walkStructural(s *structuralschema.Structural, path string, f func(string, *structuralschema.Structural)) {
	f(path, s)
	for name, p := range s.Properties {
		walkStructural(&p, path+"."+name, f)
	}
	if s.Items != nil {
		walkStructural(s.Items, path+"[]", f)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
		walkStructural(s.AdditionalProperties.Structural, path+"{}", f)
	}
}
