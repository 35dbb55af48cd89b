//go:build tools

// Package tools pins operator-sdk (CLI and scorecard-test image binary) and helm, which renders OLM's
// chart (hack/olm/render-manifests.sh) and is in operator-sdk's dependency graph anyway.
// It is a separate module because operator-sdk's dependency graph
// (containers/image, helm, k8s libraries) must not be mixed with the other tools.
// Build with CGO_ENABLED=0 -tags containers_image_openpgp (see build flags in the Makefile).
package tools

import (
	_ "github.com/operator-framework/operator-sdk/cmd/operator-sdk"
	_ "github.com/operator-framework/operator-sdk/images/scorecard-test"
	_ "helm.sh/helm/v3/cmd/helm"
)
