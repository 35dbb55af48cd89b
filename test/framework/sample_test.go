package framework

import (
	"path/filepath"
	"testing"
)

func TestSampleFromTheBundle(t *testing.T) {
	wa, err := SampleFromBundle(filepath.Join("..", "..", "bundle"))
	if err != nil {
		t.Fatal(err)
	}
	if wa.Kind != "WebApp" || wa.Name == "" || wa.Spec.Container.Image == "" {
		t.Errorf("sample: %+v", wa)
	}
	if _, err := SampleFromBundle(t.TempDir()); err == nil {
		t.Error("an empty directory: want an error")
	}
}

func TestReadTheConfigSample(t *testing.T) {
	wa, err := ReadWebApp(filepath.Join("..", "..", "config", "samples", "apps_v1beta1_webapp.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if wa.Name == "" || wa.Spec.Container.Image == "" {
		t.Errorf("sample: %+v", wa)
	}
}

func TestMissing(t *testing.T) {
	t.Setenv("FRAMEWORK_SET", "x")
	if got := Missing(MustEnv("FRAMEWORK_SET"), MustEnv("FRAMEWORK_UNSET")); len(got) != 1 || got[0] != "FRAMEWORK_UNSET" {
		t.Errorf("Missing = %v, want [FRAMEWORK_UNSET]", got)
	}
}
