package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// managerManifest is where the operator's Deployment, and so its shipped memory limit, is written
// once; kustomize and `make bundle` carry it into the bundle's CSV.
const managerManifest = "config/manager/manager.yaml"

// shippedMemoryLimit reads the memory limit of the manager container from the manager's manifest
// under repo: the benchmark holds the operator to the limit a real install runs it with.
func shippedMemoryLimit(repo string) (uint64, error) {
	data, err := os.ReadFile(filepath.Join(repo, managerManifest))
	if err != nil {
		return 0, err
	}
	return memoryLimitOf(data)
}

// memoryLimitOf finds the manager container's memory limit in a multi-document manifest.
func memoryLimitOf(manifest []byte) (uint64, error) {
	for _, doc := range bytes.Split(manifest, []byte("\n---")) {
		var d appsv1.Deployment
		if err := yaml.Unmarshal(doc, &d); err != nil || d.Kind != "Deployment" {
			continue
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			if q, ok := c.Resources.Limits["memory"]; ok && c.Name == "manager" {
				return uint64(q.Value()), nil
			}
		}
	}
	return 0, fmt.Errorf("%s: no memory limit on the manager container", managerManifest)
}

// parseMemoryLimit reads the -memory-limit flag: a quantity such as 256Mi, or "" for the shipped limit.
func parseMemoryLimit(flagValue, repo string) (uint64, error) {
	if flagValue == "" {
		return shippedMemoryLimit(repo)
	}
	q, err := resource.ParseQuantity(flagValue)
	if err != nil || q.Sign() <= 0 {
		return 0, fmt.Errorf("-memory-limit %q: want a positive quantity such as 256Mi", flagValue)
	}
	return uint64(q.Value()), nil
}

// overLimit says how a run broke the memory limit: the peak RSS of either operator process above it.
// The operator's Go runtime keeps its heap under 90% of the limit (GOMEMLIMIT, from MEMORY_LIMIT as
// the Deployment passes it), so a peak above the limit is what the kernel would OOM-kill.
func overLimit(r runResult, limit uint64) string {
	peak := max(r.Steady.HWM, r.Delete.HWM)
	if limit == 0 || peak <= limit {
		return ""
	}
	return fmt.Sprintf("peak RSS %s above the memory limit %s", mib(peak), mib(limit))
}
