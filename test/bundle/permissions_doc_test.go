package bundle_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	rbacv1 "k8s.io/api/rbac/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/webapp-operator/webapp-operator/test/framework"
)

const (
	securityDoc = "docs/security.md"
	csvManifest = "bundle/manifests/webapp-operator.clusterserviceversion.yaml"
)

// grant is one verb on one resource (of one name, when the rule names some) from one source: a file
// of config/rbac, or "permissions" or "clusterPermissions" of the CSV.
type grant struct {
	source, group, resource, name, verb string
}

// what names the verb and resource the way kubectl does (deployments.apps).
func (g grant) what() string {
	s := g.verb + " on " + g.resource
	if g.group != "" {
		s += "." + g.group
	}
	if g.name != "" {
		s += " named " + g.name
	}
	return s
}

// TestSecurityDocListsEveryPermission holds docs/security.md's permission table to what the operator
// is granted, both ways: by `make deploy` (the roles of config/ bound to the operator's
// ServiceAccount) and by the CSV. A new +kubebuilder:rbac marker fails it until the table says why.
func TestSecurityDocListsEveryPermission(t *testing.T) {
	framework.KeyCacheOnSources() // docs/, config/ and bundle/ are outside the test module
	for _, p := range permissionTableProblems(t, filepath.Join("..", "..")) {
		t.Error(p)
	}
}

// TestPermissionTableCheckHasTeeth: the check fails when a grant or the table changes alone.
func TestPermissionTableCheckHasTeeth(t *testing.T) {
	framework.KeyCacheOnSources()
	csv := filepath.FromSlash(csvManifest)
	doc := filepath.FromSlash(securityDoc)
	role := filepath.Join("config", "rbac", "role.yaml")
	tests := []struct {
		name    string
		file    string
		old     string
		new     string
		problem string
	}{
		{"a marker adds a verb to role.yaml", role,
			"  - services\n  verbs:\n  - create\n", "  - services\n  verbs:\n  - create\n  - delete\n",
			"config/rbac/role.yaml grants delete on services,"},
		{"the CSV gains a verb", csv,
			"          - services\n          verbs:\n          - create\n",
			"          - services\n          verbs:\n          - create\n          - delete\n",
			"the CSV's permissions grant delete on services,"},
		{"the table lists a verb nobody grants", doc,
			"| `replicasets` | list |", "| `replicasets` | list, watch |",
			"lists watch on replicasets.apps as granted by config/rbac/role.yaml, which does not grant it"},
		{"the table loses a verb", doc,
			"| `authentication.k8s.io` | `tokenreviews` | create |", "| `authentication.k8s.io` | `tokenreviews` | get |",
			"the CSV's clusterPermissions grant create on tokenreviews.authentication.k8s.io,"},
		{"the table puts a rule in the wrong part of the CSV", doc,
			"| `\"\"` | `pods` | list, watch | `role.yaml` | `permissions` |",
			"| `\"\"` | `pods` | list, watch | `role.yaml` | `clusterPermissions` |",
			"lists list on pods as granted by the CSV's clusterPermissions, which do not grant it"},
		{"the Lease loses its name", filepath.Join("config", "rbac", "leader_election_role.yaml"),
			"  resourceNames:\n  - webapp-operator.webapp-operator.io\n", "",
			"config/rbac/leader_election_role.yaml grants get on leases.coordination.k8s.io,"},
		{"a role without a row is bound to the operator", filepath.Join("config", "rbac", "metrics_auth_role_binding.yaml"),
			"  name: metrics-auth-role\n", "  name: metrics-reader\n",
			"config/rbac/metrics_reader_role.yaml grants get on the non-resource URL /metrics"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			copyDir(t, filepath.Join("..", "..", "config"), filepath.Join(root, "config"))
			copyDir(t, filepath.Join("..", "..", "docs"), filepath.Join(root, "docs"))
			copyDir(t, filepath.Join(bundleDir, "manifests"), filepath.Join(root, "bundle", "manifests"))
			edit(t, filepath.Join(root, tt.file), tt.old, tt.new)
			problems := permissionTableProblems(t, root)
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tt.problem) }) {
				t.Fatalf("no problem says %q; got %q", tt.problem, problems)
			}
			t.Logf("caught: %s", problems[0])
		})
	}
}

// permissionTableProblems compares the permission table of root's docs/security.md with the grants
// of root's config/ and CSV.
func permissionTableProblems(t *testing.T, root string) []string {
	t.Helper()
	documented, problems := permissionTable(t, filepath.Join(root, filepath.FromSlash(securityDoc)))
	deployed, deployProblems := deployGrants(t, filepath.Join(root, "config"))
	problems = append(problems, deployProblems...)
	granted, csvProblems := csvGrants(t, filepath.Join(root, filepath.FromSlash(csvManifest)))
	problems = append(problems, csvProblems...)
	for g, file := range deployed {
		if _, ok := documented[g]; !ok {
			problems = append(problems, fmt.Sprintf("config/%s grants %s, but %s's permission table has no row "+
				"for it with %s in its config/rbac column", file, g.what(), securityDoc, g.source))
		}
	}
	for g := range granted {
		if _, ok := documented[g]; !ok {
			problems = append(problems, fmt.Sprintf("the CSV's %s grant %s, but %s's permission table has no row "+
				"for it with %s in its CSV column", g.source, g.what(), securityDoc, g.source))
		}
	}
	for g, line := range documented {
		_, byDeploy := deployed[g]
		switch {
		case g.source == "permissions" || g.source == "clusterPermissions":
			if !granted[g] {
				problems = append(problems, fmt.Sprintf("%s:%d lists %s as granted by the CSV's %s, which do not grant it",
					securityDoc, line, g.what(), g.source))
			}
		case !byDeploy:
			problems = append(problems, fmt.Sprintf("%s:%d lists %s as granted by config/rbac/%s, which does not "+
				"grant it (or is not bound to the operator by make deploy)", securityDoc, line, g.what(), g.source))
		}
	}
	slices.Sort(problems)
	return problems
}

// expand splits a rule into its grants; nonResourceURLs have no form in the table.
func expand(source string, r rbacv1.PolicyRule) (out []grant, problem string) {
	if len(r.NonResourceURLs) > 0 {
		return nil, fmt.Sprintf("grants %s on the non-resource URL %s, which the permission table has no form for",
			strings.Join(r.Verbs, ", "), strings.Join(r.NonResourceURLs, ", "))
	}
	names := r.ResourceNames
	if len(names) == 0 {
		names = []string{""}
	}
	for _, group := range r.APIGroups {
		for _, resource := range r.Resources {
			for _, name := range names {
				for _, verb := range r.Verbs {
					out = append(out, grant{source, group, resource, name, verb})
				}
			}
		}
	}
	return out, ""
}

// csvGrants reads the rules of the CSV's install strategy.
func csvGrants(t *testing.T, path string) (map[grant]bool, []string) {
	t.Helper()
	install := readCSV(t, path).Spec.InstallStrategy.StrategySpec
	out := map[grant]bool{}
	var problems []string
	for source, sets := range map[string][]operatorsv1alpha1.StrategyDeploymentPermissions{
		"permissions": install.Permissions, "clusterPermissions": install.ClusterPermissions,
	} {
		for _, set := range sets {
			for _, r := range set.Rules {
				grants, problem := expand(source, r)
				if problem != "" {
					problems = append(problems, "the CSV's "+source+" "+problem)
				}
				for _, g := range grants {
					out[g] = true
				}
			}
		}
	}
	if len(out) == 0 {
		problems = append(problems, path+": no rules in spec.install.spec.permissions or clusterPermissions")
	}
	return out, problems
}

// manifest is what the RBAC check reads of an object of config/.
type manifest struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Rules           []rbacv1.PolicyRule     `json:"rules"`
	AggregationRule *rbacv1.AggregationRule `json:"aggregationRule"`
	RoleRef         rbacv1.RoleRef          `json:"roleRef"`
	Subjects        []rbacv1.Subject        `json:"subjects"`
	Spec            struct {
		Template struct {
			Spec struct {
				ServiceAccountName string `json:"serviceAccountName"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

// deployGrants reads what `make deploy` grants the operator: the rules of the roles that config/default's
// kustomization binds to the ServiceAccount of its Deployment, each by the file (relative to config/)
// that holds the role. The source of each grant is the file's name.
func deployGrants(t *testing.T, configDir string) (map[grant]string, []string) {
	t.Helper()
	type object struct {
		manifest
		file string
	}
	var objects []object
	var walk func(dir string)
	walk = func(dir string) {
		data, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
		must(t, err)
		var k struct {
			Resources []string `json:"resources"`
		}
		must(t, yaml.Unmarshal(data, &k))
		for _, r := range k.Resources {
			if strings.Contains(r, "://") {
				t.Fatalf("%s: remote resource %s: this check reads local files only", dir, r)
			}
			path := filepath.Join(dir, r)
			if info, err := os.Stat(path); err == nil && info.IsDir() {
				walk(path)
				continue
			}
			rel, err := filepath.Rel(configDir, path)
			must(t, err)
			for _, m := range readManifests(t, path) {
				objects = append(objects, object{m, filepath.ToSlash(rel)})
			}
		}
	}
	walk(filepath.Join(configDir, "default"))

	var serviceAccounts []string
	for _, o := range objects {
		if o.Kind == "Deployment" {
			serviceAccounts = append(serviceAccounts, o.Spec.Template.Spec.ServiceAccountName)
		}
	}
	if len(serviceAccounts) != 1 || serviceAccounts[0] == "" {
		t.Fatalf("config/default: want one Deployment naming its ServiceAccount, got %q", serviceAccounts)
	}
	out := map[grant]string{}
	var problems []string
	for _, b := range objects {
		if b.Kind != "RoleBinding" && b.Kind != "ClusterRoleBinding" ||
			!slices.ContainsFunc(b.Subjects, func(s rbacv1.Subject) bool {
				return s.Kind == rbacv1.ServiceAccountKind && s.Name == serviceAccounts[0]
			}) {
			continue
		}
		i := slices.IndexFunc(objects, func(o object) bool {
			return o.Kind == b.RoleRef.Kind && o.Metadata.Name == b.RoleRef.Name
		})
		if i < 0 {
			problems = append(problems, fmt.Sprintf("config/%s binds the operator to the %s %s, which config/ does not "+
				"define, so the permission table cannot be checked against its rules", b.file, b.RoleRef.Kind, b.RoleRef.Name))
			continue
		}
		role := objects[i]
		if role.AggregationRule != nil {
			problems = append(problems, fmt.Sprintf("config/%s: the operator's role %s aggregates others, "+
				"whose rules the permission table cannot be checked against", role.file, role.Metadata.Name))
		}
		for _, r := range role.Rules {
			grants, problem := expand(filepath.Base(role.file), r)
			if problem != "" {
				problems = append(problems, "config/"+role.file+" "+problem)
			}
			for _, g := range grants {
				out[g] = role.file
			}
		}
	}
	if len(out) == 0 {
		problems = append(problems, "config/default binds no rule to the operator's ServiceAccount "+serviceAccounts[0])
	}
	return out, problems
}

func readManifests(t *testing.T, path string) []manifest {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	var out []manifest
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		must(t, err)
		var m manifest
		if err := yaml.Unmarshal(doc, &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if m.Kind != "" {
			out = append(out, m)
		}
	}
}

var (
	code     = regexp.MustCompile("`([^`]*)`")
	codeList = "`[^`]+`(?:, `[^`]+`)*"
	// `leases` named `webapp-operator.webapp-operator.io`: the resources and, if any, their names
	resourcesCell = regexp.MustCompile("^(" + codeList + ")(?: named (" + codeList + "))?$")
	verbsCell     = regexp.MustCompile(`^[a-z*]+(?:, [a-z*]+)*$`)
	sourcesCell   = regexp.MustCompile("^(?:" + codeList + "|—)$")
)

// permissionTable reads the table(s) of the doc whose header begins "| API group | resources | verbs |"
// into the grants they list, each with its line.
func permissionTable(t *testing.T, path string) (map[grant]int, []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	out := map[grant]int{}
	var problems []string
	bad := func(line int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s:%d: ", securityDoc, line)+fmt.Sprintf(format, args...))
	}
	const (
		groupCol, resourcesCol, verbsCol = "API group", "resources", "verbs"
		deployCol, csvCol, whyCol        = "in `config/rbac`", "in the CSV", "why"
	)
	lines := strings.Split(string(data), "\n")
	tables := 0
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "| API group | resources | verbs |") {
			continue
		}
		tables++
		header := cells(lines[i])
		col := map[string]int{}
		for j, h := range header {
			col[h] = j
		}
		for _, h := range []string{groupCol, resourcesCol, verbsCol, deployCol, csvCol, whyCol} {
			if _, ok := col[h]; !ok {
				bad(i+1, "the permission table has no column %q", h)
				return out, problems
			}
		}
		for i += 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
			line, row := i+1, cells(lines[i])
			if len(row) != len(header) {
				bad(line, "%d cells, the header has %d", len(row), len(header))
				continue
			}
			group := code.FindStringSubmatch(row[col[groupCol]])
			resources := resourcesCell.FindStringSubmatch(row[col[resourcesCol]])
			verbs := row[col[verbsCol]]
			switch {
			case group == nil || group[0] != row[col[groupCol]]:
				bad(line, "API group %q: want one `group`, `\"\"` for the core group", row[col[groupCol]])
				continue
			case resources == nil:
				bad(line, "resources %q: want `resource`, ... [named `name`, ...]", row[col[resourcesCol]])
				continue
			case !verbsCell.MatchString(verbs):
				bad(line, "verbs %q: want verb, verb, ...", verbs)
				continue
			case row[col[whyCol]] == "":
				bad(line, "no reason given")
			}
			if group[1] == `""` {
				group[1] = ""
			}
			var sources []string
			for _, c := range []string{deployCol, csvCol} {
				if !sourcesCell.MatchString(row[col[c]]) {
					bad(line, "%s %q: want `file` or `section`, ..., or — for none", c, row[col[c]])
				}
				for _, m := range code.FindAllStringSubmatch(row[col[c]], -1) {
					if c == csvCol && m[1] != "permissions" && m[1] != "clusterPermissions" {
						bad(line, "%s %q: the CSV has permissions and clusterPermissions", c, m[1])
					}
					sources = append(sources, m[1])
				}
			}
			if len(sources) == 0 {
				bad(line, "granted by nothing: name a file of config/rbac or a part of the CSV")
			}
			rule := rbacv1.PolicyRule{APIGroups: []string{group[1]}, Verbs: strings.Split(verbs, ", ")}
			for _, m := range code.FindAllStringSubmatch(resources[1], -1) {
				rule.Resources = append(rule.Resources, m[1])
			}
			for _, m := range code.FindAllStringSubmatch(resources[2], -1) {
				rule.ResourceNames = append(rule.ResourceNames, m[1])
			}
			for _, source := range sources {
				grants, _ := expand(source, rule)
				for _, g := range grants {
					if first, ok := out[g]; ok {
						bad(line, "lists %s from %s again (first on line %d)", g.what(), source, first)
					}
					out[g] = line
				}
			}
		}
	}
	if tables == 0 {
		problems = append(problems, securityDoc+": no permission table (a header \"| API group | resources | verbs | ...\")")
	}
	return out, problems
}

// cells splits a Markdown table row into its trimmed cells.
func cells(row string) []string {
	parts := strings.Split(strings.Trim(strings.TrimSpace(row), "|"), "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}
