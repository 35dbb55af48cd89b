#!/usr/bin/env bash
# hack/local-cluster/gateway.sh: the end-to-end suite's gateway on the local cluster.
#
#   hack/local-cluster/gateway.sh install     build Traefik and the Gateway API CRDs (hack/install-gateway.sh,
#                                             cached), load the image, install the CRDs and gateway.yaml's
#                                             objects, and wait until the Gateway is Programmed
#   hack/local-cluster/gateway.sh uninstall   remove them (the CRDs too)
#
# Traffic enters at the Service traefik/traefik, ClusterIP $GATEWAY_IP port 80, reachable from the node's
# network namespace like every ClusterIP of the local cluster.
set -euo pipefail
LOG_PREFIX=gateway
. "$(dirname "$0")/../lib.sh"
cd "$REPO"
KUBECONFIG=${KUBECONFIG:-$REPO/.cache/local-cluster/kubeconfig}
KUBECTL=${KUBECTL:-kubectl}
export KUBECONFIG
GATEWAY_IMAGE=localhost/traefik:$TRAEFIK_VERSION
GATEWAY_IP=${GATEWAY_IP:-10.96.0.80}
kctl() { "$KUBECTL" "$@"; }

install() {
  local dir
  dir=$(hack/install-gateway.sh)
  go run ./hack/mkimage binary -binary "$dir/traefik" -name traefik -tag "$GATEWAY_IMAGE" -out bin/traefik-image.tar >/dev/null
  hack/local-cluster.sh load-image bin/traefik-image.tar
  kctl apply --server-side -f "$dir/crds/" >/dev/null
  kctl wait --for condition=Established --timeout 60s -f "$dir/crds/" >/dev/null
  log "Gateway API $GATEWAY_API_VERSION CRDs established"
  render hack/local-cluster/gateway/traefik.yaml | kctl apply --server-side -f - >/dev/null
  kctl -n traefik rollout status deploy/traefik --timeout 180s >/dev/null
  kctl -n traefik wait gateway/web --for condition=Programmed --timeout 120s >/dev/null
  log "Traefik $TRAEFIK_VERSION serving Ingress (class traefik) and Gateway traefik/web at $GATEWAY_IP:80"
}

uninstall() {
  local dir
  dir=$(hack/install-gateway.sh)
  render hack/local-cluster/gateway/traefik.yaml | kctl delete --ignore-not-found --wait=true -f - >/dev/null 2>&1 || true
  kctl delete --ignore-not-found -f "$dir/crds/" >/dev/null 2>&1 || true
  log "gateway removed"
}

case "${1:-}" in
  install) install ;;
  uninstall) uninstall ;;
  *) sed -n '2,11p' "$0" >&2; exit 2 ;;
esac
