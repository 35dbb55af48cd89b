package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestShippedMemoryLimit(t *testing.T) {
	got, err := shippedMemoryLimit(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if got < 64<<20 || got > 4<<30 {
		t.Fatalf("shipped memory limit %d bytes: not read from %s", got, managerManifest)
	}
}

func TestMemoryLimitOf(t *testing.T) {
	manifest := `apiVersion: v1
kind: Namespace
metadata:
  name: system
---
apiVersion: apps/v1
kind: Deployment
spec:
  template:
    spec:
      containers:
      - name: sidecar
        resources: {limits: {memory: 1Gi}}
      - name: manager
        resources: {limits: {memory: 256Mi}}
`
	got, err := memoryLimitOf([]byte(manifest))
	if err != nil || got != 256<<20 {
		t.Fatalf("memoryLimitOf = %d, %v; want 256Mi", got, err)
	}
	if _, err := memoryLimitOf([]byte("kind: Deployment\n")); err == nil {
		t.Fatal("a manifest without a limit was accepted")
	}
}

func TestParseMemoryLimit(t *testing.T) {
	if got, err := parseMemoryLimit("300Mi", os.TempDir()); err != nil || got != 300<<20 {
		t.Fatalf("parseMemoryLimit(300Mi) = %d, %v", got, err)
	}
	for _, bad := range []string{"x", "0", "-1Mi"} {
		if _, err := parseMemoryLimit(bad, os.TempDir()); err == nil {
			t.Errorf("parseMemoryLimit(%q) accepted", bad)
		}
	}
}

func TestOverLimit(t *testing.T) {
	r := runResult{Steady: phase{HWM: 200 << 20}, Delete: phase{HWM: 300 << 20}}
	if got := overLimit(r, 256<<20); !strings.Contains(got, "peak RSS 300 MiB above the memory limit 256 MiB") {
		t.Fatalf("overLimit = %q", got)
	}
	if got := overLimit(r, 512<<20); got != "" {
		t.Fatalf("under the limit: overLimit = %q", got)
	}
}
