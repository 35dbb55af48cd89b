#!/usr/bin/env bash
# Builds the kwok controller (sigs.k8s.io/kwok, cmd/kwok) from source through the Go module proxy into
# CACHE_DIR/kwok/<version>/kwok, for the scale benchmark (hack/bench): kwok plays the kubelet of many
# fake nodes, so Deployments become Available without running containers.
#
# Why a throwaway module: `go install sigs.k8s.io/kwok/cmd/kwok@v` may be refused by the proxy's version
# listing, and kwok's own go.mod is not ours; a module that only requires it builds the same binary.
#
# Usage: hack/install-kwok.sh    prints the binary's path (KWOK_VERSION: hack/versions.env)
# Idempotent: returns at once when the binary is already there. Cold: ~3 min on 2 idle cores.
set -euo pipefail
LOG_PREFIX=kwok
. "$(dirname "$0")/lib.sh"
DEST="$CACHE_DIR/kwok/$KWOK_VERSION"
if [ -x "$DEST/kwok" ]; then echo "$DEST/kwok"; exit 0; fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
printf 'module kwok-bin\n\ngo 1.26\n\nrequire sigs.k8s.io/kwok %s\n' "$KWOK_VERSION" >"$WORK/go.mod"
printf 'package tools\n\nimport _ "sigs.k8s.io/kwok/cmd/kwok"\n' >"$WORK/tools.go"
log "building kwok $KWOK_VERSION from the Go module proxy (cold: ~3 min on 2 cores)"
(cd "$WORK" && GOWORK=off GOFLAGS="${GOFLAGS:-} -mod=mod" go mod tidy >&2 &&
  GOWORK=off GOFLAGS="${GOFLAGS:-} -mod=mod" CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$WORK/kwok" sigs.k8s.io/kwok/cmd/kwok)
mkdir -p "$DEST"
mv -f "$WORK/kwok" "$DEST/kwok"
log "installed into $DEST"
echo "$DEST/kwok"
