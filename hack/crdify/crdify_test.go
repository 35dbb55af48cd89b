// Package crdify holds the fixtures of the CRD upgrade-safety gate (make verify-bundle): variants of
// the bundle's CRD that OLM v1's preflight must refuse or accept, checked with the gate's own crdify
// binary and settings (config.yaml).
package crdify

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const bundleCRD = "../../bundle/manifests/apps.webapp-operator.io_webapps.yaml"

type object = map[string]any

// spec is the schema of the WebApp's spec in the CRD's only version.
func spec(crd object) object {
	v := crd["spec"].(object)["versions"].([]any)[0].(object)
	return v["schema"].(object)["openAPIV3Schema"].(object)["properties"].(object)["spec"].(object)
}

func field(crd object, name string) object {
	return spec(crd)["properties"].(object)[name].(object)
}

// withVersion adds a served version v1beta2 to crd (a name the CRD does not use yet), a copy of
// v1alpha1 whose port has a new CEL rule, converted by a webhook or not (strategy None).
func withVersion(crd object, webhook bool) {
	var copied object
	if err := yaml.Unmarshal(must(yaml.Marshal(crd)), &copied); err != nil {
		panic(err)
	}
	field(copied, "port")["x-kubernetes-validations"] = []any{object{"rule": "self != 22", "message": "not ssh"}}
	v := copied["spec"].(object)["versions"].([]any)[0].(object)
	v["name"], v["storage"] = "v1beta2", false
	s := crd["spec"].(object)
	s["versions"] = append(s["versions"].([]any), v)
	if webhook {
		s["conversion"] = object{"strategy": "Webhook", "webhook": object{"conversionReviewVersions": []any{"v1"},
			"clientConfig": object{"service": object{"name": "webapp-operator-webhook", "namespace": "webapp-operator-system"}}}}
	} else {
		// the bundle's CRD converts through a webhook already: without one, strategy None
		delete(s, "conversion")
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func TestUpgradeSafety(t *testing.T) {
	bin := os.Getenv("CRDIFY")
	if bin == "" {
		t.Skip("CRDIFY is not set (make verify-bundle sets it)")
	}
	raw, err := os.ReadFile(bundleCRD)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func(crd object)
		// refusedBy names the comparator that must refuse the change (and the field, for a property
		// comparator) as crdify reports it; empty: the change is accepted.
		refusedBy string
	}{
		{"a new CEL rule on an existing field", func(crd object) {
			field(crd, "port")["x-kubernetes-validations"] = []any{object{"rule": "self != 22", "message": "not ssh"}}
		}, "^.spec.port - unhandled"},
		{"a changed CEL rule on an existing field", func(crd object) {
			rule := field(crd, "image")["x-kubernetes-validations"].([]any)[0].(object)
			rule["rule"] = rule["rule"].(string) + " && !self.startsWith('-')"
		}, "^.spec.image - unhandled"},
		{"a removed field", func(crd object) {
			delete(spec(crd)["properties"].(object), "paused")
		}, "existingFieldRemoval"},
		{"a new default on an existing field", func(crd object) {
			field(crd, "progressDeadlineSeconds")["default"] = 600
		}, "^.spec.progressDeadlineSeconds - default"},
		{"a narrower bound on an existing field", func(crd object) {
			field(crd, "replicas")["maximum"] = 100
		}, "^.spec.replicas - maximum"},
		{"an existing field made required", func(crd object) {
			spec(crd)["required"] = append(spec(crd)["required"].([]any), "port")
		}, "^.spec - required"},
		{"a new optional field", func(crd object) {
			spec(crd)["properties"].(object)["priorityClassName"] = object{"type": "string", "description": "new"}
		}, ""},
		{"a new optional field with its own CEL rule", func(crd object) {
			spec(crd)["properties"].(object)["priorityClassName"] = object{"type": "string",
				"x-kubernetes-validations": []any{object{"rule": "self != ''", "message": "empty"}}}
		}, ""},
		{"a new version with a new CEL rule, no conversion webhook", func(crd object) {
			withVersion(crd, false)
		}, "v1alpha1 -> v1beta2 - ^.spec.port - unhandled"},
		{"a new version with a new CEL rule and a conversion webhook", func(crd object) { withVersion(crd, true) }, ""},
		{"a new value of an enum", func(crd object) {
			protocol := field(crd, "ports")["items"].(object)["properties"].(object)["protocol"].(object)
			protocol["enum"] = append(protocol["enum"].([]any), "HTTP3")
		}, ""},
		{"a changed description", func(crd object) {
			field(crd, "paused")["description"] = "changed"
		}, ""},
	}
	dir := t.TempDir()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var crd object
			if err := yaml.Unmarshal(raw, &crd); err != nil {
				t.Fatal(err)
			}
			tt.change(crd)
			changed, err := yaml.Marshal(crd)
			if err != nil {
				t.Fatal(err)
			}
			newCRD := filepath.Join(dir, fmt.Sprintf("%d.yaml", i))
			if err := os.WriteFile(newCRD, changed, 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(bin, "--config", "config.yaml", "file://"+bundleCRD, "file://"+newCRD).CombinedOutput()
			switch {
			case tt.refusedBy == "" && err != nil:
				t.Fatalf("refused, want accepted: %v\n%s", err, out)
			case tt.refusedBy != "" && err == nil:
				t.Fatalf("accepted, want refused by %s\n%s", tt.refusedBy, out)
			case tt.refusedBy != "" && !strings.Contains(string(out), tt.refusedBy+" - ERROR"):
				t.Fatalf("refused, but not by %s:\n%s", tt.refusedBy, out)
			}
			t.Logf("crdify: %v\n%s", err, out)
		})
	}
}
