// Package promql_test parses every PromQL expression of the operator's dashboard, alerts and runbooks
// with Prometheus' own parser, and checks that each reads only metrics the operator serves.
//
// It is a module of its own, outside go.work: Prometheus' module requires newer versions of libraries
// the operator links, which in the workspace would replace the operator's own in every build.
// docs/observability.md lists the metrics; internal/controller's envtest suite proves the operator
// serves every one of them.
package promql_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/promql/parser"
	"sigs.k8s.io/yaml"
)

const (
	repo      = "../.."
	dashboard = repo + "/config/grafana/webapp-operator.json"
	alerts    = repo + "/config/prometheus/alerts.yaml"
	doc       = repo + "/docs/observability.md"
)

// metric is a row of docs/observability.md's metric tables.
type metric struct {
	kind   string
	labels []string
}

var metricRow = regexp.MustCompile("(?m)^\\| `([a-z_:]+)` \\| (gauge|counter|histogram) \\|([^|]*)\\|")

// documented reads the metric tables, plus Prometheus' own up.
func documented(t *testing.T) map[string]metric {
	t.Helper()
	keyCacheOnSources()
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]metric{"up": {kind: "gauge"}}
	for _, m := range metricRow.FindAllStringSubmatch(string(data), -1) {
		var ls []string
		for _, l := range strings.Split(m[3], ",") {
			if l = strings.Trim(strings.TrimSpace(l), "`"); l != "" {
				ls = append(ls, l)
			}
		}
		out[m[1]] = metric{kind: m[2], labels: ls}
	}
	if len(out) < 10 {
		t.Fatalf("%s: found only %d metrics in its tables", doc, len(out))
	}
	return out
}

// targetLabels are the labels Prometheus (through a ServiceMonitor) adds to every series it scrapes.
var targetLabels = []string{"job", "instance", "namespace", "pod", "service", "endpoint", "container"}

// series resolves the name of a series to its metric: a histogram X is served as X_bucket (with le),
// X_sum and X_count.
func series(docs map[string]metric, name string) (string, []string, bool) {
	if m, ok := docs[name]; ok {
		return name, m.labels, m.kind != "histogram"
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		base, found := strings.CutSuffix(name, suffix)
		if m, ok := docs[base]; found && ok && m.kind == "histogram" {
			if suffix == "_bucket" {
				return base, append([]string{"le"}, m.labels...), true
			}
			return base, m.labels, true
		}
	}
	return "", nil, false
}

// grafanaVars stand for the variables Grafana substitutes where PromQL wants a duration.
var grafanaVars = strings.NewReplacer("$__rate_interval", "5m", "$__interval", "1m", "$__range", "1h")

// promQL is Prometheus' parser with its default options: the functions a stock Prometheus accepts,
// no experimental ones.
var promQL = parser.NewParser(parser.Options{})

// check parses expr and returns what is wrong with it.
func check(docs map[string]metric, expr string) []string {
	e, err := promQL.ParseExpr(grafanaVars.Replace(expr))
	if err != nil {
		return []string{err.Error()}
	}
	var problems []string
	parser.Inspect(e, func(node parser.Node, _ []parser.Node) error {
		vs, ok := node.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		name, allowed, ok := series(docs, vs.Name)
		if !ok {
			problems = append(problems, "reads "+vs.Name+", which the operator does not serve (docs/observability.md)")
			return nil
		}
		for _, m := range vs.LabelMatchers {
			if m.Name != model.MetricNameLabel && !slices.Contains(allowed, m.Name) && !slices.Contains(targetLabels, m.Name) {
				problems = append(problems, "matches label "+m.Name+", which "+name+" does not have")
			}
		}
		return nil
	})
	return problems
}

// dashboardExprs returns every panel target's expr and every query variable's query, by panel title.
func dashboardExprs(t *testing.T) map[string][]string {
	t.Helper()
	keyCacheOnSources()
	data, err := os.ReadFile(dashboard)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Type    string `json:"type"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name  string          `json:"name"`
				Type  string          `json:"type"`
				Query json.RawMessage `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("%s: %v", dashboard, err)
	}
	out := map[string][]string{}
	for _, p := range d.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			out["panel "+p.Title] = append(out["panel "+p.Title], tg.Expr)
		}
	}
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(v.Query, &q); err != nil {
			t.Fatalf("variable %s: %v", v.Name, err)
		}
		// label_values(selector, label) is Grafana's: its selector is PromQL, and the label must be its
		m := regexp.MustCompile(`^label_values\((.+), *([a-z_]+)\)$`).FindStringSubmatch(q.Query)
		if m == nil {
			t.Errorf("variable %s: query %q is not label_values(selector, label)", v.Name, q.Query)
			continue
		}
		out["variable "+v.Name] = append(out["variable "+v.Name], m[1]+`{`+m[2]+`!=""}`)
	}
	return out
}

func alertExprs(t *testing.T) map[string][]string {
	t.Helper()
	keyCacheOnSources()
	data, err := os.ReadFile(alerts)
	if err != nil {
		t.Fatal(err)
	}
	var pr struct {
		Spec struct {
			Groups []struct {
				Rules []struct {
					Alert string `json:"alert"`
					Expr  string `json:"expr"`
				} `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &pr); err != nil {
		t.Fatalf("%s: %v", alerts, err)
	}
	out := map[string][]string{}
	for _, g := range pr.Spec.Groups {
		for _, r := range g.Rules {
			out["alert "+r.Alert] = append(out["alert "+r.Alert], r.Expr)
		}
	}
	return out
}

var promqlBlock = regexp.MustCompile("(?s)```promql\n(.*?)```")

// runbookExprs returns the lines of the runbooks' promql blocks: one expression a line.
func runbookExprs(t *testing.T) map[string][]string {
	t.Helper()
	pages, err := filepath.Glob(repo + "/docs/runbooks/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no runbooks: %v", err)
	}
	out := map[string][]string{}
	for _, p := range pages {
		keyCacheOnSources()
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range promqlBlock.FindAllStringSubmatch(string(data), -1) {
			for _, line := range strings.Split(strings.TrimSpace(b[1]), "\n") {
				out["runbook "+filepath.Base(p)] = append(out["runbook "+filepath.Base(p)], line)
			}
		}
	}
	return out
}

func TestEveryExpressionParsesAndReadsServedMetrics(t *testing.T) {
	docs := documented(t)
	sources := map[string]map[string][]string{
		"dashboard": dashboardExprs(t), "alerts": alertExprs(t), "runbooks": runbookExprs(t)}
	for source, exprs := range sources {
		if len(exprs) == 0 {
			t.Errorf("no expressions found in the %s", source)
		}
		for where, list := range exprs {
			for _, expr := range list {
				for _, p := range check(docs, expr) {
					t.Errorf("%s, %s: %s\n\t%s", source, where, p, expr)
				}
			}
		}
	}
}

// TestTheDashboardShowsTheOperatorsSaturation: queue depth, reconcile latency, API requests and memory.
func TestTheDashboardShowsTheOperatorsSaturation(t *testing.T) {
	var all []string
	for _, list := range dashboardExprs(t) {
		all = append(all, list...)
	}
	text := strings.Join(all, "\n")
	for _, m := range []string{"workqueue_depth", "controller_runtime_reconcile_time_seconds_bucket",
		"rest_client_requests_total", "process_resident_memory_bytes", "webapp_condition",
		"webapp_rollout_duration_seconds_bucket"} {
		if !strings.Contains(text, m) {
			t.Errorf("no dashboard panel reads %s", m)
		}
	}
}

// TestCheckRejects proves the check has teeth on expressions that are wrong in each way it looks for.
func TestCheckRejects(t *testing.T) {
	docs := map[string]metric{
		"webapp_condition":                {kind: "gauge", labels: []string{"namespace", "name", "type"}},
		"webapp_rollout_duration_seconds": {kind: "histogram"},
	}
	for _, tc := range []struct {
		expr string
		ok   bool
	}{
		{`sum by (type) (webapp_condition{type="Ready", job="x"})`, true},
		{`histogram_quantile(0.9, sum by (le) (rate(webapp_rollout_duration_seconds_bucket[$__rate_interval])))`, true},
		{`sum(webapp_condition{type="Ready"}`, false},                         // does not parse
		{`webapp_conditions{type="Ready"}`, false},                            // not served
		{`webapp_condition{condition="Ready"}`, false},                        // no such label
		{`webapp_condition_bucket`, false},                                    // a gauge has no buckets
		{`rate(webapp_rollout_duration_seconds_bucket{name="x"}[5m])`, false}, // the histogram has no name
	} {
		if got := check(docs, tc.expr); (len(got) == 0) != tc.ok {
			t.Errorf("check(%s) = %v, want ok=%v", tc.expr, got, tc.ok)
		}
	}
}

// keyCacheOnSources reads SOURCE_TREE_ID, which make test sets to a hash of the repository's files
// outside the test modules, so that go test's cached result of this suite, which reads config/ and
// docs/, counts only for the same files (test/framework.KeyCacheOnSources says why; this module
// cannot import it).
func keyCacheOnSources() {
	_ = os.Getenv("SOURCE_TREE_ID")
}
