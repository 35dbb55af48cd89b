#!/usr/bin/env bash
# Fetches the Prometheus Operator's ServiceMonitor CRD (github.com/prometheus-operator/prometheus-operator's
# example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml) of PROMETHEUS_OPERATOR_VERSION
# (hack/versions.env) from the Go module proxy, into CACHE_DIR/prometheus-operator/<version>/crds/, and
# prints that folder.
#
# The envtest suites (make test) install it to test the ServiceMonitor child of a WebApp's spec.metrics.
# Only that one CRD: it is all the operator writes, and the others (Prometheus, Alertmanager, ...) are
# large and would slow every start of the suite's control plane. As hack/install-gateway-api-crds.sh
# does, a throwaway module downloads the module (go mod download needs one), so the operator's go.mod
# never learns of the Prometheus Operator; the module's go.sum line is checked against the checksum
# database as usual.
#
# Usage: hack/install-prometheus-operator-crds.sh    prints the folder of servicemonitors.yaml
# Idempotent: returns at once when it is there. Cold: a few seconds (one module download).
set -euo pipefail
LOG_PREFIX=prometheus-operator-crds
. "$(dirname "$0")/lib.sh"
DEST="$CACHE_DIR/prometheus-operator/$PROMETHEUS_OPERATOR_VERSION/crds"
if [ -s "$DEST/servicemonitors.yaml" ]; then echo "$DEST"; exit 0; fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
src=$(module_dir "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION")
crd="$src/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml"
[ -s "$crd" ] || die "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION has no $crd"
# Written to a temporary folder and renamed: a run interrupted half-way leaves nothing partial behind.
mkdir -p "$WORK/crds" "$(dirname "$DEST")"
cp "$crd" "$WORK/crds/servicemonitors.yaml" && chmod 0644 "$WORK/crds/servicemonitors.yaml"
rm -rf "$DEST" && mv "$WORK/crds" "$DEST"
log "installed into $DEST"
echo "$DEST"
