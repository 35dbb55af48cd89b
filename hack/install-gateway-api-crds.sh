#!/usr/bin/env bash
# Fetches the standard-channel Gateway API CRDs (sigs.k8s.io/gateway-api's config/crd/standard) of
# GATEWAY_API_VERSION (hack/versions.env) from the Go module proxy, into
# CACHE_DIR/gateway-api/<version>/crds/, and prints that folder.
#
# Why its own script: the envtest suites (make test) install these CRDs to test the HTTPRoute child,
# and must not wait for the ~7-minute Traefik build of hack/install-gateway.sh, which reuses this
# script. The module is downloaded by a throwaway module (go mod download needs one), so neither the
# operator's go.mod nor its dependency list learns of the Gateway API; the module's go.sum line is
# checked against the checksum database as usual.
#
# Usage: hack/install-gateway-api-crds.sh    prints the folder of the CRD files (httproutes.yaml, ...)
# Idempotent: returns at once when they are there. Cold: a few seconds (one module download).
set -euo pipefail
LOG_PREFIX=gateway-api-crds
. "$(dirname "$0")/lib.sh"
DEST="$CACHE_DIR/gateway-api/$GATEWAY_API_VERSION/crds"
if [ -s "$DEST/httproutes.yaml" ]; then echo "$DEST"; exit 0; fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
src=$(module_dir "sigs.k8s.io/gateway-api@$GATEWAY_API_VERSION")
[ -d "$src/config/crd/standard" ] || die "sigs.k8s.io/gateway-api@$GATEWAY_API_VERSION has no config/crd/standard"
# Written to a temporary folder and renamed: a run interrupted half-way leaves no partial set behind.
mkdir -p "$WORK/crds" "$(dirname "$DEST")"
for f in "$src"/config/crd/standard/gateway.networking.k8s.io_*.yaml; do
  cp "$f" "$WORK/crds/${f##*_}" && chmod 0644 "$WORK/crds/${f##*_}"
done
rm -rf "$DEST" && mv "$WORK/crds" "$DEST"
log "installed into $DEST"
echo "$DEST"
