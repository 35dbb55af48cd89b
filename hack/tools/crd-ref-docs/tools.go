//go:build tools

// Package tools pins crd-ref-docs, which renders docs/api.md from the Go types of api/v1alpha1
// (make api-docs). It is a separate module because its controller-tools and Kubernetes libraries are
// older than those of hack/tools, and mixing them would change what the other tools are built from.
package tools

import (
	_ "github.com/elastic/crd-ref-docs"
)
