package bundle_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/version"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"

	"github.com/webapp-operator/webapp-operator/internal/operator"
	"github.com/webapp-operator/webapp-operator/internal/resources"
)

const (
	widget    = "urn:alm:descriptor:com.tectonic.ui:"
	k8sObject = "urn:alm:descriptor:io.kubernetes:"
)

// wholeValueWidgets edit or show a field's whole value, so the fields inside it have no descriptor of
// their own: the resource requirements form has its own inputs for limits and requests, and the
// conditions table its own columns.
var wholeValueWidgets = []string{widget + "resourceRequirements", "urn:alm:descriptor:io.kubernetes.conditions"}

// undocumented are the fields whose Go doc comment is shared with the field before them, so that
// their descriptor has no description of its own: in every version, one comment above Reason
// documents Reason and Message.
var undocumented = map[string]string{
	"status.rolledBack.message": "RollbackStatus documents Reason and Message in one comment above Reason",
}

// TestEveryFieldHasADescriptor holds the claim of docs/olm.md and docs/openshift.md: every spec and
// status field of the WebApp has a descriptor, down to the fields of list items, so the console's
// form and details page show each with a name, a description and a widget that fits it. The only
// fields without one are those inside a value a whole-value widget edits (wholeValueWidgets). No
// descriptor names a field the CRD does not have, and each widget fits its field's type. It holds for
// every served version: the console builds the form of a version from that version's descriptors,
// and "Create WebApp" uses the served version its examples (alm-examples) are written in.
func TestEveryFieldHasADescriptor(t *testing.T) {
	crd := loadCRD(t)
	owned := ownedByVersion(t, loadCSV(t), crd)
	for _, v := range crd.Spec.Versions {
		t.Run(v.Name, func(t *testing.T) {
			for _, problem := range descriptorProblems(v, owned[v.Name]) {
				t.Error(problem)
			}
		})
	}
}

// TestDescriptorCheckHasTeeth: the check fails when a field of the served version loses its
// descriptor, when a descriptor names a field the version does not have, and when a widget does not
// fit its field.
func TestDescriptorCheckHasTeeth(t *testing.T) {
	crd := loadCRD(t)
	owned := ownedByVersion(t, loadCSV(t), crd)
	versionNamed := func(name string) apiextensionsv1.CustomResourceDefinitionVersion {
		for _, v := range crd.Spec.Versions {
			if v.Name == name {
				return v
			}
		}
		t.Fatalf("the CRD has no version %s", name)
		return apiextensionsv1.CustomResourceDefinitionVersion{}
	}
	tests := []struct {
		name, version, path string
		change              func(*operatorsv1alpha1.CRDDescription, int)
		problem             string
	}{
		{"a v1beta1 field loses its descriptor", "v1beta1", "rollout.onFailure", dropSpecDescriptor,
			"spec.rollout.onFailure has no descriptor"},
		{"a v1beta1 list item's field loses its descriptor", "v1beta1", "exposure.service.ports[0].port",
			dropSpecDescriptor, "spec.exposure.service.ports[0].port has no descriptor"},
		{"a v1beta1 descriptor names a v1alpha1 path", "v1beta1", "container.image",
			func(d *operatorsv1alpha1.CRDDescription, i int) { d.SpecDescriptors[i].Path = "image" },
			"spec.image: the descriptor names no field of the CRD"},
		{"a v1beta1 enum gets a boolean widget", "v1beta1", "rollout.onConfigChange",
			func(d *operatorsv1alpha1.CRDDescription, i int) {
				d.SpecDescriptors[i].XDescriptors = []string{widget + "booleanSwitch"}
			},
			"spec.rollout.onConfigChange: x-descriptor " + widget + "booleanSwitch: needs a boolean"},
		{"a v1alpha1 field loses its descriptor", "v1alpha1", "rolloutOnConfigChange", dropSpecDescriptor,
			"spec.rolloutOnConfigChange has no descriptor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := *owned[tt.version]
			d.SpecDescriptors = slices.Clone(d.SpecDescriptors)
			i := slices.IndexFunc(d.SpecDescriptors, func(s operatorsv1alpha1.SpecDescriptor) bool {
				return s.Path == tt.path
			})
			if i < 0 {
				t.Fatalf("the %s entry has no descriptor of %s to change", tt.version, tt.path)
			}
			tt.change(&d, i)
			problems := descriptorProblems(versionNamed(tt.version), &d)
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tt.problem) }) {
				t.Fatalf("no problem says %q; got %q", tt.problem, problems)
			}
		})
	}
}

func dropSpecDescriptor(d *operatorsv1alpha1.CRDDescription, i int) {
	d.SpecDescriptors = slices.Delete(d.SpecDescriptors, i, i+1)
}

// ownedByVersion maps each version of the CRD to the CSV's owned entry of it, and fails when a served
// version has no entry or an entry names a version the CRD does not have.
func ownedByVersion(t *testing.T, csv *operatorsv1alpha1.ClusterServiceVersion,
	crd *apiextensionsv1.CustomResourceDefinition) map[string]*operatorsv1alpha1.CRDDescription {
	t.Helper()
	versions := map[string]bool{}
	for _, v := range crd.Spec.Versions {
		versions[v.Name] = v.Served
	}
	out := map[string]*operatorsv1alpha1.CRDDescription{}
	owned := csv.Spec.CustomResourceDefinitions.Owned
	for i := range owned {
		if _, ok := versions[owned[i].Version]; !ok || owned[i].Name != crd.Name {
			t.Errorf("the CSV owns %s %s, which the bundle's CRD does not have", owned[i].Name, owned[i].Version)
		}
		out[owned[i].Version] = &owned[i]
	}
	for name, served := range versions {
		if _, ok := out[name]; served && !ok {
			t.Errorf("the CSV has no owned entry for the served version %s", name)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	return out
}

// descriptorProblems checks the descriptors of one owned entry against its version of the CRD.
func descriptorProblems(v apiextensionsv1.CustomResourceDefinitionVersion,
	owned *operatorsv1alpha1.CRDDescription) []string {
	if owned == nil {
		return []string{v.Name + ": no owned entry"}
	}
	props := v.Schema.OpenAPIV3Schema.Properties
	var problems []string
	for _, part := range []struct {
		name        string
		descriptors []descriptor
	}{
		{"spec", specDescriptors(owned.SpecDescriptors)},
		{"status", statusDescriptors(owned.StatusDescriptors)},
	} {
		problems = append(problems, partProblems(part.name, props[part.name], part.descriptors)...)
	}
	return problems
}

// partProblems checks the descriptors of the spec or the status against that part's schema.
func partProblems(part string, schema apiextensionsv1.JSONSchemaProps, descriptors []descriptor) []string {
	fields := map[string]apiextensionsv1.JSONSchemaProps{}
	schemaFields(schema, "", fields)
	if len(fields) < 20 {
		return []string{fmt.Sprintf("only %d %s fields in the CRD: is the schema read right?", len(fields), part)}
	}
	var problems []string
	described := map[string]bool{}
	var whole []string
	for _, d := range descriptors {
		name := part + "." + d.path
		schema, ok := fields[d.path]
		switch {
		case !ok:
			problems = append(problems, name+": the descriptor names no field of the CRD")
			continue
		case described[d.path]:
			problems = append(problems, name+": two descriptors")
		}
		described[d.path] = true
		problems = append(problems, textProblems(name, d)...)
		for _, x := range d.xDescriptors {
			if problem := widgetMisfit(part, x, schema); problem != "" {
				problems = append(problems, fmt.Sprintf("%s: x-descriptor %s: %s", name, x, problem))
			}
			if slices.Contains(wholeValueWidgets, x) {
				whole = append(whole, d.path)
			}
		}
	}
	var missing []string
	for path := range fields {
		inWhole := slices.ContainsFunc(whole, func(w string) bool {
			return strings.HasPrefix(path, w+".") || strings.HasPrefix(path, w+"[")
		})
		switch {
		case inWhole && described[path]:
			problems = append(problems, part+"."+path+" has a descriptor, but a whole-value widget shows it already")
		case !inWhole && !described[path]:
			missing = append(missing, part+"."+path)
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		problems = append(problems,
			m+" has no descriptor (a +operator-sdk:csv:customresourcedefinitions marker on its Go field)")
	}
	return problems
}

// textProblems: a descriptor has a display name, and a description unless its field is undocumented.
func textProblems(name string, d descriptor) []string {
	var problems []string
	if d.displayName == "" {
		problems = append(problems, name+": no displayName")
	}
	if _, known := undocumented[name]; d.description == "" && !known {
		problems = append(problems, name+": no description (its Go doc comment is the descriptor's)")
	} else if d.description != "" && known {
		problems = append(problems, name+" is documented now: drop it from undocumented")
	}
	return problems
}

type descriptor struct {
	path, displayName, description string
	xDescriptors                   []string
}

func specDescriptors(in []operatorsv1alpha1.SpecDescriptor) []descriptor {
	out := make([]descriptor, 0, len(in))
	for _, d := range in {
		out = append(out, descriptor{d.Path, d.DisplayName, d.Description, d.XDescriptors})
	}
	return out
}

func statusDescriptors(in []operatorsv1alpha1.StatusDescriptor) []descriptor {
	out := make([]descriptor, 0, len(in))
	for _, d := range in {
		out = append(out, descriptor{d.Path, d.DisplayName, d.Description, d.XDescriptors})
	}
	return out
}

// schemaFields lists the fields under schema by descriptor path: "a.b", and "a[0].b" for the field b
// of the items of list a. A map's keys are data, not fields.
func schemaFields(schema apiextensionsv1.JSONSchemaProps, prefix string,
	out map[string]apiextensionsv1.JSONSchemaProps) {
	for name, p := range schema.Properties {
		out[prefix+name] = p
		schemaFields(p, prefix+name+".", out)
		if p.Items != nil && p.Items.Schema != nil {
			schemaFields(*p.Items.Schema, prefix+name+"[0].", out)
		}
	}
}

// widgetMisfit says why the x-descriptor x does not fit a field of this schema in part (spec or
// status), after the console's own rules (the widgets a value of each type can take, and the spec's
// and the status' widgets); "" when it fits.
func widgetMisfit(part, x string, schema apiextensionsv1.JSONSchemaProps) string {
	primitive := schema.XIntOrString || slices.Contains([]string{"string", "integer", "number", "boolean"}, schema.Type)
	need := func(ok bool, what string) string {
		if ok {
			return ""
		}
		return "needs " + what + ", the field is " + describeType(schema)
	}
	if part == "spec" {
		switch {
		case x == widget+"advanced", x == widget+"hidden":
			return ""
		case x == widget+"text":
			return need(primitive, "a string or a number")
		case x == widget+"number":
			return need(schema.Type == "integer" || schema.Type == "number", "a number")
		case x == widget+"podCount":
			return need(schema.Type == "integer", "an integer")
		case x == widget+"booleanSwitch":
			return need(schema.Type == "boolean", "a boolean")
		case x == widget+"resourceRequirements":
			return need(schema.Type == "object", "an object")
		case strings.HasPrefix(x, widget+"select:"):
			if len(schema.Enum) == 0 {
				return need(primitive, "a string or a number")
			}
			option := strings.TrimPrefix(x, widget+"select:")
			for _, e := range schema.Enum {
				if strings.Trim(string(e.Raw), `"`) == option {
					return ""
				}
			}
			return "not among the field's enum values"
		case strings.HasPrefix(x, k8sObject):
			return need(schema.Type == "string", "an object's name")
		}
		return "not a spec widget this test knows"
	}
	switch x {
	case widget + "hidden":
		return ""
	case "urn:alm:descriptor:text":
		return need(primitive, "a string or a number")
	case "urn:alm:descriptor:org.w3:link":
		return need(schema.Type == "string", "a string")
	case "urn:alm:descriptor:io.kubernetes.conditions":
		return need(schema.Type == "array", "a list")
	}
	return "not a status widget this test knows"
}

func describeType(s apiextensionsv1.JSONSchemaProps) string {
	if s.XIntOrString {
		return "an int-or-string"
	}
	if s.Type == "" {
		return "untyped"
	}
	return "of type " + s.Type
}

func loadCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crds := bundleCRDs(t)
	if len(crds) != 1 {
		t.Fatalf("want one CRD in the bundle, got %d", len(crds))
	}
	return crds[0]
}

// TestCSVDescriptionSellsWhatShips holds the CSV's description to the code: it names every kind of
// child the operator creates and every reason that makes a WebApp Stalled (docs/conditions.md, which
// test/conditions holds to the code), its examples are WebApps the API server admits, and its links
// lead to files of the repository.
func TestCSVDescriptionSellsWhatShips(t *testing.T) {
	csv := loadCSV(t)
	description := csv.Spec.Description
	for _, child := range resources.All {
		gvks, _, err := operator.Scheme.ObjectKinds(child.New())
		if err != nil || len(gvks) == 0 {
			t.Fatalf("%s: %v", child.Kind(), err)
		}
		if !strings.Contains(description, gvks[0].Kind) {
			t.Errorf("the description does not name the %s a WebApp may have", gvks[0].Kind)
		}
	}
	stalled := stalledReasons(t)
	if len(stalled) < 5 {
		t.Fatalf("only %d Stalled reasons read from docs/conditions.md: is its table read right?", len(stalled))
	}
	for _, r := range stalled {
		if !strings.Contains(description, "`"+r+"`") {
			t.Errorf("the description does not name the Stalled reason %s", r)
		}
	}

	examples := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(description, -1)
	if len(examples) == 0 {
		t.Error("the description has no YAML example")
	}
	for i, m := range examples {
		for _, problem := range admit(t, []byte(m[1])) {
			t.Errorf("example %d: %s", i+1, problem)
		}
	}

	const repo = "https://github.com/webapp-operator/webapp-operator"
	urls := regexp.MustCompile(`\]\((https?://[^)\s]+)\)`).FindAllStringSubmatch(description, -1)
	links := make([]string, 0, len(urls)+len(csv.Spec.Links))
	for _, m := range urls {
		links = append(links, m[1])
	}
	for _, l := range csv.Spec.Links {
		links = append(links, l.URL)
	}
	for _, l := range links {
		path, inRepo := strings.CutPrefix(l, repo+"/blob/main/")
		switch {
		case inRepo:
			if _, err := os.Stat(filepath.Join("..", "..", filepath.FromSlash(path))); err != nil {
				t.Errorf("link %s: no such file in the repository", l)
			}
		case l != repo && l != repo+"#readme":
			t.Errorf("link %s: not to the repository's main branch", l)
		}
	}
}

// stalledReasons are the reasons of docs/conditions.md's table whose Stalled column is True.
func stalledReasons(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", "conditions.md"))
	must(t, err)
	defer func() { _ = f.Close() }()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		// | `Reason` | Ready | Reconciling | Stalled | kstatus | ...
		if len(cells) > 5 && strings.HasPrefix(strings.TrimSpace(cells[1]), "`") &&
			strings.TrimSpace(cells[4]) == "True" {
			out = append(out, strings.Trim(strings.TrimSpace(cells[1]), "`"))
		}
	}
	must(t, sc.Err())
	return out
}

// admit runs what the API server runs on a new WebApp from its CRD: pruning (a field the schema does
// not know), the OpenAPI schema, defaulting and the CEL rules. It returns the problems found.
func admit(t *testing.T, manifest []byte) []string {
	t.Helper()
	// as the API server decodes a request: integers as int64, which CEL rules compare with ints
	data, err := yaml.YAMLToJSON(manifest)
	if err != nil {
		return []string{err.Error()}
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(data, &obj); err != nil {
		return []string{err.Error()}
	}
	v1, problem := schemaOf(loadCRD(t), obj["apiVersion"])
	if problem != "" {
		return []string{problem}
	}
	internal := &apiextensions.JSONSchemaProps{}
	must(t, apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v1, internal, nil))
	s := structural(t, v1)
	var problems []string
	if unknown := pruning.PruneWithOptions(obj, s, true,
		structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true}); len(unknown) > 0 {
		problems = append(problems, "unknown fields: "+strings.Join(unknown, ", "))
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internal)
	must(t, err)
	for _, e := range apiservervalidation.ValidateCustomResource(nil, obj, validator) {
		problems = append(problems, e.Error())
	}
	defaulting.Default(obj, s)
	errs, _ := cel.NewValidator(s, true, celconfig.PerCallLimit).
		Validate(context.Background(), nil, s, obj, nil, celconfig.RuntimeCELCostBudget)
	for _, e := range errs {
		problems = append(problems, e.Error())
	}
	return problems
}

// schemaOf is the schema of the served version of crd that apiVersion names, as the API server picks
// it for a request.
func schemaOf(crd *apiextensionsv1.CustomResourceDefinition,
	apiVersion any) (*apiextensionsv1.JSONSchemaProps, string) {
	for _, v := range crd.Spec.Versions {
		if v.Served && apiVersion == crd.Spec.Group+"/"+v.Name {
			return v.Schema.OpenAPIV3Schema, ""
		}
	}
	return nil, fmt.Sprintf("apiVersion %v: not a served version of %s", apiVersion, crd.Name)
}

// TestAdmitRefusesWhatTheAPIServerRefuses: the check of the description's examples has teeth.
func TestAdmitRefusesWhatTheAPIServerRefuses(t *testing.T) {
	const head = "apiVersion: apps.webapp-operator.io/v1alpha1\nkind: WebApp\nmetadata:\n  name: shop\nspec:\n"
	const beta = "apiVersion: apps.webapp-operator.io/v1beta1\nkind: WebApp\nmetadata:\n  name: shop\nspec:\n"
	for _, valid := range []string{
		head + "  image: shop:1\n  autoscaling:\n    minReplicas: 2\n    maxReplicas: 3\n",
		beta + "  container:\n    image: shop:1\n  scaling:\n    autoscaler:\n      minReplicas: 2\n      maxReplicas: 3\n",
	} {
		if problems := admit(t, []byte(valid)); len(problems) > 0 {
			t.Fatalf("a valid WebApp refused: %v", problems)
		}
	}
	for name, spec := range map[string]string{
		"unknown field":       "  image: shop:1\n  replica: 3\n",
		"schema":              "  image: shop:1\n  replicas: -1\n",
		"required field":      "  replicas: 1\n",
		"CEL rule":            "  image: shop:1\n  autoscaling:\n    minReplicas: 4\n    maxReplicas: 3\n",
		"CEL rule on default": "  image: shop:1\n  service:\n    nodePort: 30080\n",
	} {
		if problems := admit(t, []byte(head+spec)); len(problems) == 0 {
			t.Errorf("%s: admitted", name)
		}
	}
	for name, manifest := range map[string]string{
		"a v1alpha1 spec under v1beta1": beta + "  image: shop:1\n",
		"a version not served":          strings.Replace(beta, "v1beta1", "v1", 1) + "  container:\n    image: shop:1\n",
		"v1beta1's stricter image rule": beta + "  container:\n    image: Shop:1\n",
	} {
		if problems := admit(t, []byte(manifest)); len(problems) == 0 {
			t.Errorf("%s: admitted", name)
		}
	}
}

// The OpenShift infrastructure features the console filters on; each annotation is "true" only
// where the code and its tests back it.
var featureAnnotations = []string{"cnf", "cni", "csi", "disconnected", "fips-compliant", "proxy-aware",
	"tls-profiles", "token-auth-aws", "token-auth-azure", "token-auth-gcp"}

// TestCSVDeclaresOpenShiftFeatures: every feature annotation is set, "true" or "false", and none is
// misspelt. disconnected is true because the CSV lists every image it runs in relatedImages, and the
// released bundle names them by digest (make bundle-pinned, which make test-olm installs offline);
// this test holds the first half.
func TestCSVDeclaresOpenShiftFeatures(t *testing.T) {
	csv := loadCSV(t)
	const prefix = "features.operators.openshift.io/"
	for k, v := range csv.Annotations {
		if name, ok := strings.CutPrefix(k, prefix); ok && !slices.Contains(featureAnnotations, name) {
			t.Errorf("%s=%s: not a feature annotation OpenShift knows", k, v)
		}
	}
	for _, name := range featureAnnotations {
		if v := csv.Annotations[prefix+name]; v != "true" && v != "false" {
			t.Errorf("%s%s: %q, want \"true\" or \"false\"", prefix, name, v)
		}
	}
	if csv.Annotations[prefix+"disconnected"] != "true" {
		return
	}
	related := map[string]bool{}
	for _, r := range csv.Spec.RelatedImages {
		related[r.Image] = true
	}
	images := []string{csv.Annotations["containerImage"]}
	for _, d := range csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
		for _, c := range append(d.Spec.Template.Spec.InitContainers, d.Spec.Template.Spec.Containers...) {
			images = append(images, c.Image)
		}
	}
	slices.Sort(images)
	for _, img := range slices.Compact(images) {
		if !related[img] {
			t.Errorf("image %q is not in relatedImages: a mirror for a disconnected cluster would miss it", img)
		}
	}
}

// TestBundleOffersTheOpenShiftReleasesItRunsOn: com.redhat.openshift.versions, which picks the
// OpenShift catalogs that offer the bundle, starts at the release of the CSV's minKubeVersion and is
// open-ended, and bundle.Dockerfile labels the image with the same value as metadata/annotations.yaml.
func TestBundleOffersTheOpenShiftReleasesItRunsOn(t *testing.T) {
	const key = "com.redhat.openshift.versions"
	data, err := os.ReadFile(filepath.Join(bundleDir, "metadata", "annotations.yaml"))
	must(t, err)
	var metadata struct {
		Annotations map[string]string `json:"annotations"`
	}
	must(t, yaml.Unmarshal(data, &metadata))
	annotation := metadata.Annotations[key]
	dockerfile, err := os.ReadFile(filepath.Join("..", "..", "bundle.Dockerfile"))
	must(t, err)
	if !strings.Contains(string(dockerfile), "\nLABEL "+key+"="+annotation+"\n") {
		t.Errorf("bundle.Dockerfile has no LABEL %s=%s, as metadata/annotations.yaml has", key, annotation)
	}
	m := regexp.MustCompile(`^v4\.([0-9]+)$`).FindStringSubmatch(annotation)
	if m == nil {
		t.Fatalf("%s: %q, want v4.N (that release and later)", key, annotation)
	}
	minor, _ := strconv.Atoi(m[1])
	// OpenShift 4.N ships Kubernetes 1.(N+13), from 4.6 (1.19) on.
	minKube := version.MustParseGeneric(loadCSV(t).Spec.MinKubeVersion)
	if kube := uint(minor + 13); minKube.Major() != 1 || kube != minKube.Minor() {
		t.Errorf("%s starts at OpenShift 4.%d (Kubernetes 1.%d), the CSV's minKubeVersion is %s",
			key, minor, kube, minKube)
	}
}

// TestMaturityMatchesTheChannel: the CSV's maturity is the name of the channel it ships on, so that
// OperatorHub's maturity and the channel a Subscription follows promise the same.
func TestMaturityMatchesTheChannel(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(bundleDir, "metadata", "annotations.yaml"))
	must(t, err)
	var metadata struct {
		Annotations map[string]string `json:"annotations"`
	}
	must(t, yaml.Unmarshal(data, &metadata))
	channel := metadata.Annotations["operators.operatorframework.io.bundle.channel.default.v1"]
	if maturity := loadCSV(t).Spec.Maturity; maturity != channel {
		t.Errorf("maturity %q on channel %q", maturity, channel)
	}
}
