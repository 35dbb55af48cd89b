#!/usr/bin/env bash
# hack/verify-versions.sh: every pinned version is written once, in hack/versions.env.
#   1. The Go modules that build a tool (hack/tools/*/go.mod) require exactly the versions.env version:
#      they are its lock files.
#   2. No other file spells a versions.env value (with or without its leading v, which a version like
#      one of the operator's own releases, 0.3.0, must have). Left out: the lock
#      files (go.mod, go.sum), what tools generate and stamp with their own version (bundle/,
#      bundle.Dockerfile, config/crd/bases, the last release's CRD in hack/crdify, OLM's rendered release
#      manifests in hack/olm/manifests) and
#      docs/performance.md, which records the versions each measurement was taken with.
set -euo pipefail
LOG_PREFIX=verify-versions
. "$(dirname "$0")/lib.sh"
cd "$REPO"
export GOWORK=off GOFLAGS=-mod=mod
fail=0

# module dir, module path, versions.env name
while read -r dir mod name; do
  got=$(cd "$dir" && go list -m -f '{{.Version}}' "$mod")
  if [ "$got" != "${!name}" ]; then
    log "$dir/go.mod requires $mod $got, but hack/versions.env says $name=${!name}"
    fail=1
  fi
done <<'PINS'
hack/tools sigs.k8s.io/controller-tools CONTROLLER_TOOLS_VERSION
hack/tools sigs.k8s.io/kustomize/kustomize/v5 KUSTOMIZE_VERSION
hack/tools sigs.k8s.io/controller-runtime/tools/setup-envtest SETUP_ENVTEST_VERSION
hack/tools github.com/golangci/golangci-lint/v2 GOLANGCI_LINT_VERSION
hack/tools/crd-ref-docs github.com/elastic/crd-ref-docs CRD_REF_DOCS_VERSION
hack/tools/operator-sdk github.com/operator-framework/operator-sdk OPERATOR_SDK_VERSION
hack/tools/operator-sdk helm.sh/helm/v3 HELM_VERSION
hack/tools/olm github.com/operator-framework/operator-lifecycle-manager OLM_VERSION
hack/tools/olm github.com/operator-framework/operator-registry OPM_VERSION
hack/tools/olm github.com/grpc-ecosystem/grpc-health-probe GRPC_HEALTH_PROBE_VERSION
hack/tools/crdify github.com/operator-framework/operator-controller OPERATOR_CONTROLLER_VERSION
hack/tools/crdify sigs.k8s.io/crdify CRDIFY_VERSION
PINS

names=$(sed -n 's/^\([A-Z0-9_]*_VERSION\)=.*/\1/p' hack/versions.env)
files=$(git ls-files --cached --others --exclude-standard | grep -v -E \
  '(^|/)go\.(mod|sum)$|^go\.work\.sum$|^hack/versions\.env$|^hack/olm/manifests/|^docs/performance\.md$|^bundle/|^bundle\.Dockerfile$|^config/crd/bases/|^hack/crdify/release-.*\.yaml$')
# the operator's own version (the Makefile's VERSION) is written wherever a release is named
own=v$(sed -n 's/^VERSION ?= //p' Makefile)
for name in $names; do
  value=${!name}
  if [ "$value" = "$own" ]; then
    log "$name=$value is also the operator's own version: its spellings elsewhere are not checked"
    continue
  fi
  # digits around it make another version (v1.37.20, 11.37.2); a leading v is optional, except for a
  # version that reads like one of the operator's own releases (0.3.0), which docs and tests name
  re=${value#v}; re=${re//./\\.}; re=${re//+/\\+}
  v='v?'
  [[ $value =~ ^v0\.[0-9]+\.0$ ]] && v=v
  hits=$(echo "$files" | xargs grep -n -E -- "(^|[^0-9.])$v$re([^0-9]|\$)" 2>/dev/null | grep -v '^hack/verify-versions.sh:' || true)
  if [ -n "$hits" ]; then
    log "$name=$value is written outside hack/versions.env:"
    echo "$hits" | sed 's/^/    /' >&2
    fail=1
  fi
done
[ "$fail" = 0 ] && log "every version is written once (hack/versions.env)"
exit "$fail"
