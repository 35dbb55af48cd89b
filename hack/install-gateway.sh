#!/usr/bin/env bash
# Builds the end-to-end suite's gateway from source through the Go module proxy, into
# CACHE_DIR/traefik/<version>/: Traefik (github.com/traefik/traefik/v3, cmd/traefik), which serves both
# networking.k8s.io Ingress and the Gateway API, and the Gateway API CRDs of the release it implements
# (hack/install-crds.sh gateway-api, which the envtest suites also use; crds/ links to its folder).
#
# Why Traefik is built as the main module (from a copy of its module source) rather than required by a
# throwaway module, as kwok is: its go.mod replaces three dependencies with forks (gorilla/mux and
# others), and replace directives only apply in the main module. The proxy serves Traefik's module but
# not its checksum database entry, so GONOSUMDB names it; its dependencies are checked against its own
# go.sum. The web UI is not built (npm): the binary embeds the placeholder the module ships.
#
# Usage: hack/install-gateway.sh    prints the cache folder: traefik, crds/*.yaml
#        (TRAEFIK_VERSION, GATEWAY_API_VERSION: hack/versions.env)
# Idempotent: returns at once when both are there. Cold: ~12 min on 2 idle cores (the CRDs: seconds).
set -euo pipefail
LOG_PREFIX=gateway
. "$(dirname "$0")/lib.sh"
DEST="$CACHE_DIR/traefik/$TRAEFIK_VERSION"
crds=$("$(dirname "$0")/install-crds.sh" gateway-api)
mkdir -p "$DEST"
# a cache made before the CRDs had their own script holds a copy: replace it with the link
[ -L "$DEST/crds" ] || rm -rf "$DEST/crds"
ln -sfn "$crds" "$DEST/crds"
if [ -x "$DEST/traefik" ]; then echo "$DEST"; exit 0; fi

WORK=$(mktemp -d)
trap 'chmod -R u+w "$WORK"; rm -rf "$WORK"' EXIT
export GOWORK=off GONOSUMDB=github.com/traefik/traefik/v3
# module_dir MODULE@VERSION: the module's source in the module cache (downloaded on first use)
module_dir() {
  (cd "$WORK" && go mod download -json "$1" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
}
printf 'module gateway-bin\n\ngo 1.26\n' >"$WORK/go.mod"
src=$(module_dir "github.com/traefik/traefik/v3@$TRAEFIK_VERSION")
[ -d "$src/cmd/traefik" ] || die "github.com/traefik/traefik/v3@$TRAEFIK_VERSION: no module source"
cp -r "$src" "$WORK/traefik" && chmod -R u+w "$WORK/traefik"
log "building Traefik $TRAEFIK_VERSION from the Go module proxy (cold: ~12 min on 2 cores)"
(cd "$WORK/traefik" && GOFLAGS="${GOFLAGS:-} -mod=mod" CGO_ENABLED=0 \
  go build -trimpath -ldflags "-s -w -X github.com/traefik/traefik/v3/pkg/version.Version=$TRAEFIK_VERSION" \
  -o "$WORK/traefik-bin" ./cmd/traefik)
mv -f "$WORK/traefik-bin" "$DEST/traefik"
log "installed into $DEST"
echo "$DEST"
