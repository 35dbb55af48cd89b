#!/usr/bin/env bash
# hack/verify-deploy-configs.sh: config/default-secret-rollouts must render exactly what config/default
# renders with `../secret-rollouts` uncommented in its `components` list (after ../webhook): the two
# documented ways to turn Secret rollouts on for `make deploy` give the same objects. Compares them as
# sets of objects.
set -euo pipefail
LOG_PREFIX=verify-deploy-configs
. "$(dirname "$0")/lib.sh"
kustomize=${KUSTOMIZE:-$REPO/bin/kustomize}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cp -r "$REPO/config" "$tmp/config"
grep -q '^components:$' "$tmp/config/default/kustomization.yaml" ||
  die "config/default has no components list, which the commented ../secret-rollouts line belongs to"
sed -i -e 's|^#- \.\./secret-rollouts$|- ../secret-rollouts|' "$tmp/config/default/kustomization.yaml"
grep -q '^- \.\./secret-rollouts$' "$tmp/config/default/kustomization.yaml" ||
  die "config/default no longer has the commented ../secret-rollouts component this check uncomments"

# One line per object (kustomize writes each object the same way in both builds; only the order may
# differ), sorted.
objects() { "$kustomize" build "$1" | awk 'BEGIN { RS = "\n---\n" } { gsub(/\n/, "\\n"); print }' | sort; }
objects "$tmp/config/default" >"$tmp/uncommented"
objects "$REPO/config/default-secret-rollouts" >"$tmp/overlay"
diff -u "$tmp/uncommented" "$tmp/overlay" >&2 ||
  die "config/default-secret-rollouts renders other objects than config/default with the component uncommented"
objects "$REPO/config/default" >"$tmp/default"
! grep -q SECRET_ROLLOUTS "$tmp/default" || die "config/default turns Secret rollouts on: they are off by default"
log "config/default-secret-rollouts = config/default + ../secret-rollouts; config/default leaves them off"
# Both versions are served with different schemas: every install of the CRD must convert through the
# webhook, since `strategy: None` (the default when conversion is unset) silently prunes fields.
for c in crd default default-secret-rollouts; do
  crd=$("$kustomize" build "$REPO/config/$c" | awk 'BEGIN { RS = "\n---\n" } /\nkind: CustomResourceDefinition\n/')
  grep -q '^    strategy: Webhook$' <<<"$crd" || die "config/$c installs the WebApp CRD without conversion.strategy: Webhook"
done
log "config/crd, config/default and config/default-secret-rollouts install the CRD with a conversion webhook"
