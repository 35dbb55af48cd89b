package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// These tests run the real scorecard-test binary; `make test` builds it and sets SCORECARD_TEST.
func scorecardBinary(t *testing.T) string {
	bin := os.Getenv("SCORECARD_TEST")
	if bin == "" {
		t.Skip("SCORECARD_TEST is not set (make test sets it)")
	}
	return bin
}

func TestCommittedBundlePassesAllSixTests(t *testing.T) {
	var out strings.Builder
	failed, err := run("../../bundle", scorecardBinary(t), "", &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	if failed != 0 {
		t.Fatalf("%d scorecard tests failed", failed)
	}
	if !strings.Contains(out.String(), "scorecard: 6 passed, 0 failed") {
		t.Fatalf("expected the six built-in tests to run, got:\n%s", out.String())
	}
}

func TestBrokenBundlesFail(t *testing.T) {
	csv := filepath.Join("manifests", "webapp-operator.clusterserviceversion.yaml")
	tests := []struct{ name, test, file, old, replacement string }{
		{"spec descriptors missing", "olm-spec-descriptors-test", csv, "specDescriptors:", "droppedSpecDescriptors:"},
		// The example sets a field the CRD's schema does not know.
		{"example field outside the CRD schema", "olm-crds-have-validation-test", csv, `"replicas":`, `"replicaz":`},
		// (olm-status-descriptors only checks the status fields an example carries, and a create
		// example carries none; test/bundle checks that every status field has a descriptor.)
		{"CRD resources missing", "olm-crds-have-resources-test", csv, "      resources:\n", "      droppedResources:\n"},
		{"invalid CSV", "olm-bundle-validation-test", csv, "installModes:", "installModez:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := prepareRoot(dir, "../../bundle", scorecardBinary(t)); err != nil {
				t.Fatal(err)
			}
			bundle := filepath.Join(dir, "bundle")
			path := filepath.Join(bundle, tt.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), tt.old) {
				t.Fatalf("%s lacks %q: the test no longer breaks anything", tt.file, tt.old)
			}
			if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(data), tt.old, tt.replacement)), 0o644); err != nil {
				t.Fatal(err)
			}
			failed, err := run(bundle, scorecardBinary(t), tt.test, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if failed == 0 {
				t.Fatalf("%s passed on a broken bundle", tt.test)
			}
		})
	}
}
