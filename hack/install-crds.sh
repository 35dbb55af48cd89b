#!/usr/bin/env bash
# Fetches the CRDs of a project whose objects the operator writes, from the Go module proxy, into
# CACHE_DIR/<set>/<version>/crds/ (one file per kind, named after its resource: httproutes.yaml), and
# prints that folder. The envtest suite (make test) installs them to test the children that need them,
# without the project's controller:
#   gateway-api          the Gateway API's standard channel (GATEWAY_API_VERSION), for the HTTPRoute
#                        child; the benchmark and hack/install-gateway.sh use it too.
#   prometheus-operator  the ServiceMonitor CRD alone (PROMETHEUS_OPERATOR_VERSION), for spec.metrics:
#                        the others (Prometheus, Alertmanager, ...) are large and would slow every start
#                        of the suite's control plane.
# module_dir (hack/lib.sh) downloads the module without any go.mod of the project learning of it.
#
# Usage: hack/install-crds.sh gateway-api|prometheus-operator
# Idempotent: returns at once when the folder is there. Cold: a few seconds (one module download).
set -euo pipefail
LOG_PREFIX=${1:-}-crds
. "$(dirname "$0")/lib.sh"
case ${1:-} in
  gateway-api) version=$GATEWAY_API_VERSION module=sigs.k8s.io/gateway-api
    files=config/crd/standard/gateway.networking.k8s.io_*.yaml ;;
  prometheus-operator) version=$PROMETHEUS_OPERATOR_VERSION module=github.com/prometheus-operator/prometheus-operator
    files=example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml ;;
  *) die "usage: $0 gateway-api|prometheus-operator" ;;
esac
DEST="$CACHE_DIR/$1/$version/crds"
if [ -d "$DEST" ]; then echo "$DEST"; exit 0; fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
src=$(module_dir "$module@$version")
# Written to a temporary folder and renamed: a run interrupted half-way leaves no partial set behind,
# and of two concurrent runs the second finds the folder there (-T: not moved into it).
mkdir -p "$WORK/crds" "$(dirname "$DEST")"
for f in "$src"/$files; do
  [ -s "$f" ] || die "$module@$version has no $files"
  cp "$f" "$WORK/crds/${f##*_}" && chmod 0644 "$WORK/crds/${f##*_}"
done
mv -T "$WORK/crds" "$DEST" 2>/dev/null || [ -d "$DEST" ]
log "installed into $DEST"
echo "$DEST"
