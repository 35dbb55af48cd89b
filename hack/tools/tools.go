//go:build tools

// Package tools pins the versions of the Go-based development tools used by
// this project (see the Makefile). Build them with, for example:
//
//	cd hack/tools && go build -o ../../bin/ sigs.k8s.io/controller-tools/cmd/controller-gen
package tools

import (
	_ "github.com/golangci/golangci-lint/v2/cmd/golangci-lint"
	_ "sigs.k8s.io/controller-runtime/tools/setup-envtest"
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
	_ "sigs.k8s.io/kustomize/kustomize/v5"
)
