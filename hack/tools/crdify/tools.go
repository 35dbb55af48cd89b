//go:build tools

// Package tools pins crdify, the CRD upgrade-safety checker of OLM v1 (make verify-bundle), at the
// version operator-controller requires, built against operator-controller's module graph: its
// Kubernetes libraries are those the preflight in OLM v1 runs with. Only operator-controller's API
// package is imported, to keep it in that graph; nothing here is run.
package tools

import (
	_ "github.com/operator-framework/operator-controller/api/v1"
	_ "sigs.k8s.io/crdify"
)
