#!/usr/bin/env bash
# hack/local-cluster/deploy.sh IMAGE_TARBALL: `make deploy` (of DEPLOY_CONFIG from the environment,
# which the Makefile defaults) on the local cluster, then restart the operator only if what it reads
# once, when it starts, has changed since it last started:
#   - its image: the tag stays the same across rebuilds (no registry, IfNotPresent), so the kubelet
#     would keep running the old build;
#   - the optional APIs it discovers at start-up (internal/operator/discovery.go): the Gateway API's
#     and the Prometheus Operator's CRDs.
# Both go into a key kept in an annotation on the Deployment (not on its pod template, which would
# roll the pods on every first deploy). An unchanged key leaves the running operator alone: a
# restart costs up to a leader-election retry period (26 s) with no leader.
set -euo pipefail
LOG_PREFIX=deploy
. "$(dirname "$0")/../lib.sh"
eval "$("$REPO/hack/local-cluster.sh" env)"
tarball=$1
kubectl=${KUBECTL:-kubectl}
ns=webapp-operator-system
deploy=deploy/webapp-operator-controller-manager
annotation=local.webapp-operator.io/restart-key

key=$( {
  sha256sum "$tarball" | cut -d' ' -f1
  "$kubectl" get crd -o name | grep -E '\.(gateway\.networking\.k8s\.io|monitoring\.coreos\.com)$' || true
} | sha256sum | cut -c1-16)
old=$("$kubectl" -n "$ns" get "$deploy" -o "jsonpath={.metadata.annotations.local\.webapp-operator\.io/restart-key}" \
  2>/dev/null || echo absent)

make -C "$REPO" --no-print-directory deploy KUBECTL="$kubectl"
case "$old" in
  absent) log "deployed" ;;
  "$key") log "image and optional APIs unchanged: the running operator stays" ;;
  *) log "the image or the optional APIs changed: restarting the operator"
     "$kubectl" -n "$ns" rollout restart "$deploy" ;;
esac
"$kubectl" -n "$ns" annotate --overwrite "$deploy" "$annotation=$key" >/dev/null
"$kubectl" -n "$ns" rollout status "$deploy" --timeout=180s
