//go:build tools

// Package tools pins OLM v1: operator-controller and catalogd, the two managers of its release
// (quay.io/operator-framework/operator-controller and catalogd). It is a separate module because OLM v1's
// Kubernetes libraries move on their own schedule. hack/olmv1.sh builds them into images for the local
// cluster; nothing here is imported.
package tools

import (
	_ "github.com/operator-framework/operator-controller/cmd/catalogd"
	_ "github.com/operator-framework/operator-controller/cmd/operator-controller"
)
