// Package observability_test holds the operator's alerts and dashboard against what it exports and
// documents: every alert links a runbook that exists, every runbook belongs to an alert, and every
// PromQL expression parses and reads only metrics the operator serves.
package observability_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/webapp-operator/webapp-operator/test/framework"
)

const (
	alertsFile  = "../../config/prometheus/alerts.yaml"
	runbookDir  = "../../docs/runbooks"
	runbookBase = "https://github.com/webapp-operator/webapp-operator/blob/main/docs/runbooks/"
)

type rule struct {
	Alert       string            `json:"alert"`
	Record      string            `json:"record"`
	Expr        string            `json:"expr"`
	For         string            `json:"for"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

// loadRules reads the rules of the PrometheusRule.
func loadRules(t *testing.T) []rule {
	t.Helper()
	framework.KeyCacheOnSources() // config/ and docs/ are outside the test module
	data, err := os.ReadFile(alertsFile)
	if err != nil {
		t.Fatal(err)
	}
	var pr struct {
		APIVersion string         `json:"apiVersion"`
		Kind       string         `json:"kind"`
		Metadata   map[string]any `json:"metadata"`
		Spec       struct {
			Groups []struct {
				Name  string `json:"name"`
				Rules []rule `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.UnmarshalStrict(data, &pr); err != nil {
		t.Fatalf("%s: %v", alertsFile, err)
	}
	var out []rule
	for _, g := range pr.Spec.Groups {
		out = append(out, g.Rules...)
	}
	if pr.Kind != "PrometheusRule" || len(out) == 0 {
		t.Fatalf("%s: want a PrometheusRule with rules, got kind %q and %d rules", alertsFile, pr.Kind, len(out))
	}
	return out
}

// runbookSections are what each runbook must say.
var runbookSections = []string{"## What it means", "## How to confirm it", "## What to do"}

func TestEveryAlertHasARunbookAndEveryRunbookAnAlert(t *testing.T) {
	alerts := map[string]bool{}
	for _, r := range loadRules(t) {
		if r.Alert == "" {
			continue
		}
		alerts[r.Alert] = true
		if r.Labels["severity"] == "" || r.Annotations["summary"] == "" {
			t.Errorf("alert %s has no severity label or no summary", r.Alert)
		}
		if want := runbookBase + r.Alert + ".md"; r.Annotations["runbook_url"] != want {
			t.Errorf("alert %s: runbook_url %q, want %q", r.Alert, r.Annotations["runbook_url"], want)
		}
		framework.KeyCacheOnSources()
		data, err := os.ReadFile(filepath.Join(runbookDir, r.Alert+".md"))
		if err != nil {
			t.Errorf("alert %s has no runbook: %v", r.Alert, err)
			continue
		}
		if !strings.HasPrefix(string(data), "# "+r.Alert+"\n") {
			t.Errorf("runbook of %s does not start with its title", r.Alert)
		}
		for _, s := range runbookSections {
			if !strings.Contains(string(data), "\n"+s+"\n") {
				t.Errorf("runbook of %s lacks the section %q", r.Alert, s)
			}
		}
	}
	pages, err := filepath.Glob(filepath.Join(runbookDir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if name := strings.TrimSuffix(filepath.Base(p), ".md"); !alerts[name] {
			t.Errorf("runbook %s is linked by no alert", p)
		}
	}
}
