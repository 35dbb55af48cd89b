//go:build tools

// Package tools pins OLM v0 (olm, catalog, package-server, copy-content and cpb: the binaries of
// quay.io/operator-framework/olm), opm from the operator-registry version that OLM itself requires, and
// grpc_health_probe, with which OLM probes catalog pods. It is a separate module because OLM's Kubernetes
// libraries (v0.34) are older than the operator's. hack/olm.sh builds them into images for the local
// cluster; nothing here is imported.
package tools

import (
	_ "github.com/grpc-ecosystem/grpc-health-probe"
	_ "github.com/operator-framework/operator-lifecycle-manager/cmd/catalog"
	_ "github.com/operator-framework/operator-lifecycle-manager/cmd/copy-content"
	_ "github.com/operator-framework/operator-lifecycle-manager/cmd/olm"
	_ "github.com/operator-framework/operator-lifecycle-manager/cmd/package-server"
	_ "github.com/operator-framework/operator-lifecycle-manager/util/cpb"
	_ "github.com/operator-framework/operator-registry/cmd/opm"
)
