// Package bundle_test validates the committed OLM bundle the way OperatorHub's pipeline does
// (`operator-sdk bundle validate --select-optional suite=operatorframework`), without a cluster, and
// proves the validation has teeth by feeding it deliberately broken copies.
package bundle_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	apimanifests "github.com/operator-framework/api/pkg/manifests"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	apivalidation "github.com/operator-framework/api/pkg/validation"
	interfaces "github.com/operator-framework/api/pkg/validation/interfaces"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/webapp-operator/webapp-operator/internal/operator"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/test/framework"
)

const bundleDir = "../../bundle"

// knownWarnings are validator warnings that cannot be fixed or that hold a decision, with the reason.
var knownWarnings = map[string]string{
	// The deprecated-API check flags every RBAC rule on events.k8s.io/events, whatever the
	// version; the operator uses events.k8s.io/v1, GA since Kubernetes 1.19 and not deprecated.
	"Migrate the API(s) for events": "false positive: events.k8s.io/v1 is not deprecated",
	// Every owned version should have an example; the deprecated v1alpha1 has none on purpose: the
	// alm-examples are what a new WebApp starts from, and a new WebApp is written in v1beta1
	// (config/samples/kustomization.yaml keeps the v1alpha1 twins out). v1beta1's is not excused.
	"apps.webapp-operator.io/v1alpha1, Kind=WebApp: " +
		"provided API should have an example annotation": "by design: no new WebApp in a deprecated version",
}

// validate runs the operatorframework suite on dir and returns its errors and unexplained warnings.
func validate(t *testing.T, dir string) (errs, warns []string) {
	t.Helper()
	b, err := apimanifests.GetBundleFromDir(filepath.Join(dir, "manifests"))
	if err != nil {
		return []string{"loading bundle: " + err.Error()}, nil
	}
	objs := append(b.ObjectsToValidate(), map[string]string{"k8s-version": "1.37"})
	validators := append(interfaces.Validators{}, apivalidation.DefaultBundleValidators...)
	validators = append(validators,
		apivalidation.OperatorHubV2Validator,
		apivalidation.StandardCapabilitiesValidator,
		apivalidation.StandardCategoriesValidator,
		apivalidation.AlphaDeprecatedAPIsValidator,
		apivalidation.GoodPracticesValidator,
	)
	for _, r := range validators.Validate(objs...) {
		for _, e := range r.Errors {
			errs = append(errs, r.Name+": "+e.Error())
		}
	nextWarning:
		for _, w := range r.Warnings {
			for known := range knownWarnings {
				if strings.Contains(w.Error(), known) {
					continue nextWarning
				}
			}
			warns = append(warns, r.Name+": "+w.Error())
		}
	}
	return errs, warns
}

func TestBundleIsValid(t *testing.T) {
	errs, warns := validate(t, bundleDir)
	for _, e := range errs {
		t.Error(e)
	}
	for _, w := range warns {
		t.Errorf("warning: %s", w)
	}
}

func loadCSV(t *testing.T) *operatorsv1alpha1.ClusterServiceVersion {
	t.Helper()
	framework.KeyCacheOnSources() // bundle/ is outside the test module
	return readCSV(t, filepath.Join(bundleDir, "manifests", "webapp-operator.clusterserviceversion.yaml"))
}

// readCSV reads the CSV at path.
func readCSV(t *testing.T, path string) *operatorsv1alpha1.ClusterServiceVersion {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	must(t, yaml.Unmarshal(data, csv))
	return csv
}

// TestCSVSupportsAllNamespacesOnly: the CRD converts between its versions through the operator's
// webhook, and a CRD is cluster-wide, so one operator must serve every namespace. Both OLMs accept a
// conversion webhook only in a bundle that supports AllNamespaces alone (docs/olm.md).
func TestCSVSupportsAllNamespacesOnly(t *testing.T) {
	modes := loadCSV(t).Spec.InstallModes
	if len(modes) != 4 {
		t.Errorf("want the four install modes listed, got %v", modes)
	}
	for _, m := range modes {
		if want := m.Type == operatorsv1alpha1.InstallModeTypeAllNamespaces; m.Supported != want {
			t.Errorf("install mode %s: supported %t, want %t", m.Type, m.Supported, want)
		}
	}
}

// TestCSVPermissionsAreLeastPrivilege checks that the operator gets exactly what its RBAC markers
// (config/rbac/role.yaml) and leader election need, namespaced, and nothing cluster-wide but
// the TokenReview/SubjectAccessReview rights of authenticated metrics.
func TestCSVPermissionsAreLeastPrivilege(t *testing.T) {
	install := loadCSV(t).Spec.InstallStrategy.StrategySpec
	want := append(readRules(t, "../../config/rbac/role.yaml"),
		readRules(t, "../../config/rbac/leader_election_role.yaml")...)
	if len(install.Permissions) != 1 {
		t.Fatalf("want one namespaced permission set, got %d", len(install.Permissions))
	}
	if got := install.Permissions[0].Rules; !sameRules(got, want) {
		t.Errorf("namespaced rules differ from the markers'.\n got: %v\nwant: %v", got, want)
	}
	if len(install.ClusterPermissions) != 1 {
		t.Fatalf("want one cluster permission set, got %d", len(install.ClusterPermissions))
	}
	for _, r := range install.ClusterPermissions[0].Rules {
		if !reflect.DeepEqual(r.Verbs, []string{"create"}) ||
			(r.Resources[0] != "tokenreviews" && r.Resources[0] != "subjectaccessreviews") {
			t.Errorf("unexpected cluster-wide rule %v", r)
		}
	}
}

func TestCSVDeploymentIsRestricted(t *testing.T) {
	deps := loadCSV(t).Spec.InstallStrategy.StrategySpec.DeploymentSpecs
	if len(deps) != 1 {
		t.Fatalf("want one operator Deployment, got %d", len(deps))
	}
	pod := deps[0].Spec.Template.Spec
	if psc := pod.SecurityContext; psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot ||
		psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod security context is not restricted: %+v", psc)
	}
	// OpenShift's restricted-v2 SCC assigns each namespace a UID range and refuses pods pinned outside it.
	if psc := pod.SecurityContext; psc != nil && (psc.RunAsUser != nil || psc.RunAsGroup != nil || psc.FSGroup != nil) {
		t.Errorf("pod security context pins a UID or GID: %+v", psc)
	}
	for _, c := range pod.Containers {
		if sc := c.SecurityContext; sc != nil && (sc.RunAsUser != nil || sc.RunAsGroup != nil) {
			t.Errorf("container %s pins a UID or GID: %+v", c.Name, sc)
		}
		sc := c.SecurityContext
		if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
			sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
			sc.Capabilities == nil || !reflect.DeepEqual(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
			t.Errorf("container %s security context is not restricted: %+v", c.Name, sc)
		}
		if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() ||
			c.Resources.Limits.Cpu().IsZero() || c.Resources.Limits.Memory().IsZero() {
			t.Errorf("container %s lacks resource requests or limits: %+v", c.Name, c.Resources)
		}
		if !hasEnv(c, "WATCH_NAMESPACE") {
			t.Errorf("container %s does not read WATCH_NAMESPACE", c.Name)
		}
	}
}

// TestCSVMetadataForOperatorHubAndOpenShift checks what OperatorHub and the OpenShift console read
// besides the install strategy (docs/openshift.md): the namespace the console suggests is the one
// `make deploy` uses, and the platforms are declared for the console's filters (make image-check ties
// them to the image).
func TestCSVMetadataForOperatorHubAndOpenShift(t *testing.T) {
	csv := loadCSV(t)
	kustomization, err := os.ReadFile(filepath.Join("..", "..", "config", "default", "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		Namespace string `json:"namespace"`
	}
	if err := yaml.Unmarshal(kustomization, &k); err != nil || k.Namespace == "" {
		t.Fatalf("config/default/kustomization.yaml: namespace %q (%v)", k.Namespace, err)
	}
	if got := csv.Annotations["operatorframework.io/suggested-namespace"]; got != k.Namespace {
		t.Errorf("suggested-namespace %q, want %q (config/default's)", got, k.Namespace)
	}
	for _, l := range []string{"operatorframework.io/os.linux", "operatorframework.io/arch.amd64",
		"operatorframework.io/arch.arm64"} {
		if csv.Labels[l] != "supported" {
			t.Errorf("label %s: %q, want supported", l, csv.Labels[l])
		}
	}
}

// TestBrokenBundlesAreRejected proves the validation fails when the bundle is broken.
func TestBrokenBundlesAreRejected(t *testing.T) {
	csvFile := filepath.Join("manifests", "webapp-operator.clusterserviceversion.yaml")
	tests := []struct {
		name    string
		breakIt func(t *testing.T, dir string)
	}{
		{"CRD missing from the bundle", func(t *testing.T, dir string) {
			must(t, os.Remove(filepath.Join(dir, "manifests", "apps.webapp-operator.io_webapps.yaml")))
		}},
		{"unknown capability level", func(t *testing.T, dir string) {
			edit(t, filepath.Join(dir, csvFile), "capabilities: Deep Insights", "capabilities: Fully Magic")
		}},
		{"unknown category", func(t *testing.T, dir string) {
			edit(t, filepath.Join(dir, csvFile), "categories: Application Runtime,Developer Tools", "categories: Toys")
		}},
		{"no install mode supported", func(t *testing.T, dir string) {
			edit(t, filepath.Join(dir, csvFile), "supported: true", "supported: false")
		}},
		{"a conversion webhook with a namespace-scoped install mode", func(t *testing.T, dir string) {
			edit(t, filepath.Join(dir, csvFile), "supported: false\n    type: OwnNamespace",
				"supported: true\n    type: OwnNamespace")
		}},
		{"icon without media type", func(t *testing.T, dir string) {
			edit(t, filepath.Join(dir, csvFile), "mediatype: image/svg+xml", "mediatype: \"\"")
		}},
		{"owned CRD version that the CRD does not serve", func(t *testing.T, dir string) {
			edit(t, filepath.Join(dir, csvFile), "    version: v1alpha1", "    version: v9")
		}},
		{"example that is not valid YAML/JSON", func(t *testing.T, dir string) {
			edit(t, filepath.Join(dir, csvFile), "alm-examples: |-\n      [", "alm-examples: |-\n      [}")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			copyDir(t, bundleDir, dir)
			tt.breakIt(t, dir)
			if errs, _ := validate(t, dir); len(errs) == 0 {
				t.Fatal("the broken bundle passed validation")
			} else {
				t.Logf("rejected as expected: %s", errs[0])
			}
		})
	}
}

func readRules(t *testing.T, path string) []rbacv1.PolicyRule {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.Unmarshal(data, &role); err != nil {
		t.Fatal(err)
	}
	return role.Rules
}

// sameRules compares rule sets regardless of order.
func sameRules(a, b []rbacv1.PolicyRule) bool {
	if len(a) != len(b) {
		return false
	}
	used := make([]bool, len(b))
next:
	for _, x := range a {
		for j, y := range b {
			if !used[j] && reflect.DeepEqual(x, y) {
				used[j] = true
				continue next
			}
		}
		return false
	}
	return true
}

func hasEnv(c corev1.Container, name string) bool {
	for _, e := range c.Env {
		if e.Name == name {
			return true
		}
	}
	return false
}

func edit(t *testing.T, path, old, replacement string) {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s does not contain %q: the test no longer breaks anything", path, old)
	}
	must(t, os.WriteFile(path, []byte(strings.ReplaceAll(string(data), old, replacement)), 0o644))
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	must(t, filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	}))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestCSVOwnsEveryKindOfChild: the CSV lists, as the WebApp's owned resources of every version, every
// kind of child the operator creates (the resources marker of the WebApp type of each version), so
// that OLM's console shows them whichever version it shows the WebApp in.
func TestCSVOwnsEveryKindOfChild(t *testing.T) {
	owned := ownedByVersion(t, loadCSV(t), loadCRD(t))
	for version, entry := range owned {
		listed := map[string]bool{}
		for _, r := range entry.Resources {
			listed[r.Kind+"/"+r.Version] = true
		}
		for _, child := range resources.All {
			gvks, _, err := operator.Scheme.ObjectKinds(child.New())
			if err != nil || len(gvks) == 0 {
				t.Fatalf("%s: %v", child.Kind(), err)
			}
			if want := gvks[0].Kind + "/" + gvks[0].Version; !listed[want] {
				t.Errorf("%s: the CSV does not list the child %s among the WebApp's resources (have %v)",
					version, want, listed)
			}
		}
	}
}
