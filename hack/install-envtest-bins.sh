#!/usr/bin/env bash
# Builds the envtest control plane (kube-apiserver, etcd, kubectl) from source through the Go module proxy
# into the setup-envtest store layout (BIN_DIR/k8s/<X.Y.Z>-<os>-<arch>/), so envtest runs with no downloads.
#
# Why from source: setup-envtest fetches release tarballs from the internet, which this project must not need.
# `go install k8s.io/kubernetes/cmd/...@v` is refused (replace directives), so a throwaway module pins every
# staging module with replace directives of its own.
#
# Usage: hack/install-envtest-bins.sh [BIN_DIR]     prints the assets dir (usable as KUBEBUILDER_ASSETS)
#        BIN_DIR defaults to ~/.cache/webapp-operator/envtest; versions: K8S_VERSION, ETCD_VERSION (hack/versions.env)
# Env:   WITH_KCM=1 also builds kube-controller-manager
#        WITH_NODE=1 also builds kube-controller-manager, kube-scheduler, kube-proxy and kubelet (the
#        node binaries of hack/local-cluster.sh), into the same folder so every clone shares one copy
#        WITH_SCHED=1 also builds kube-controller-manager and kube-scheduler (make test's scheduling specs,
#        the scale benchmark)
# Idempotent: returns at once when every binary is already there.
set -euo pipefail
LOG_PREFIX=envtest-bins
. "$(dirname "$0")/lib.sh"
BIN_DIR=$(mkdir -p "${1:-$CACHE_DIR/envtest}" && cd "${1:-$CACHE_DIR/envtest}" && pwd)
STAGING_VERSION=v0.${K8S_VERSION#v1.}
DEST="$BIN_DIR/k8s/${K8S_VERSION#v}-$(go env GOOS)-$(go env GOARCH)"
WANT="kube-apiserver etcd kubectl"
[ -n "${WITH_KCM:-}${WITH_NODE:-}${WITH_SCHED:-}" ] && WANT="$WANT kube-controller-manager"
[ -n "${WITH_NODE:-}${WITH_SCHED:-}" ] && WANT="$WANT kube-scheduler"
[ -n "${WITH_NODE:-}" ] && WANT="$WANT kube-proxy kubelet"

have_all() { for b in $WANT; do [ -x "$DEST/$b" ] || return 1; done; }
if have_all; then echo "$DEST"; exit 0; fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/k8s" "$WORK/etcd" "$WORK/out"

STAGING="api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider
cluster-bootstrap code-generator component-base component-helpers controller-manager cri-api cri-client
cri-streaming csi-translation-lib dynamic-resource-allocation endpointslice externaljwt kms kube-aggregator
kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics mount-utils pod-security-admission
sample-apiserver streaming"
{
  printf 'module envtest-k8s-bins\n\ngo 1.26\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$K8S_VERSION"
  for m in $STAGING; do printf '\tk8s.io/%s => k8s.io/%s %s\n' "$m" "$m" "$STAGING_VERSION"; done
  printf ')\n'
} >"$WORK/k8s/go.mod"

# Build only what is missing: one go build for several commands shares the compile work.
CMDS=""
for c in $WANT; do [ "$c" = etcd ] || [ -x "$DEST/$c" ] || CMDS="$CMDS $c"; done
PKGS=""
for c in $CMDS; do PKGS="$PKGS k8s.io/kubernetes/cmd/$c"; done
MINOR=$(echo "$K8S_VERSION" | cut -d. -f2)
LD="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  LD="$LD -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$MINOR -X $p.gitTreeState=clean -X $p.buildDate=1970-01-01T00:00:00Z"
done
if [ -n "$CMDS" ]; then
  log "building$CMDS $K8S_VERSION from the Go module proxy (cold: the longest build of the project; cached: seconds)"
  # -mod=mod: never `go mod tidy` this module, it would pull ~1.6 GB of Kubernetes test dependencies.
  (cd "$WORK/k8s" && GOWORK=off GOFLAGS="${GOFLAGS:-} -mod=mod" CGO_ENABLED=0 go build -trimpath -ldflags "$LD" -o "$WORK/out/" $PKGS)
fi

# etcd's server/v3 is package main; its go.mod has replace directives, so `go install` is refused too.
if [ ! -x "$DEST/etcd" ]; then
  printf 'module envtest-etcd-bin\n\ngo 1.26\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$ETCD_VERSION" >"$WORK/etcd/go.mod"
  log "building etcd $ETCD_VERSION"
  (cd "$WORK/etcd" && GOWORK=off GOFLAGS="${GOFLAGS:-} -mod=mod" CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$WORK/out/etcd" go.etcd.io/etcd/server/v3)
fi

mkdir -p "$DEST"
for b in $WANT; do if [ -x "$WORK/out/$b" ]; then mv -f "$WORK/out/$b" "$DEST/$b"; fi; done
log "installed into $DEST"
echo "$DEST"
