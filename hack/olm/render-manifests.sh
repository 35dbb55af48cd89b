#!/usr/bin/env bash
# hack/olm/render-manifests.sh: writes hack/olm/manifests/{crds.yaml,olm.yaml}, OLM's install manifests,
# the way OLM's own release does it (scripts/package_release.sh + package_quickstart.sh): `helm template`
# of the chart in the OLM module pinned by hack/tools/olm, with deploy/upstream/values.yaml and the
# release's image references. The files are committed; hack/olm.sh install rewrites the image references
# to the local registry. Run it again when OLM_VERSION changes (needs bin/helm: `make helm`).
#
# Why not the quickstart files of the module: they are stale in the tagged source (packageserver 0.18.3,
# no OLMConfig CRD, single-dash flags the catalog operator refuses); releases regenerate them.
set -euo pipefail
LOG_PREFIX=olm-manifests
. "$(dirname "$0")/../lib.sh"
HELM=${HELM:-$REPO/bin/helm}
OUT=$REPO/hack/olm/manifests

export GOWORK=off # hack/tools/olm is a module of its own
MOD=$(cd "$REPO/hack/tools/olm" && go list -m -f '{{.Dir}}' github.com/operator-framework/operator-lifecycle-manager)
[ "$(cd "$REPO/hack/tools/olm" && go list -m -f '{{.Version}}' github.com/operator-framework/operator-lifecycle-manager)" = "$OLM_VERSION" ] ||
  { echo "hack/tools/olm does not pin OLM $OLM_VERSION" >&2; exit 1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cp -R "$MOD/deploy/chart" "$work/chart" && chmod -R u+w "$work/chart"
sed -i "s/^[Vv]ersion:.*\$/version: ${OLM_VERSION#v}/" "$work/chart/Chart.yaml"
img=quay.io/operator-framework/olm:$OLM_VERSION
"$HELM" template -n olm -f "$MOD/deploy/upstream/values.yaml" --include-crds --output-dir "$work/out" \
  --set "olm.image.ref=$img,catalog.image.ref=$img,package.image.ref=$img" \
  --set "catalog.opmImageArgs=--opmImage=quay.io/operator-framework/opm:$OPM_VERSION" "$work/chart" >/dev/null

mkdir -p "$OUT"
: >"$OUT/crds.yaml"; : >"$OUT/olm.yaml"
# package_quickstart.sh: every file starts a document, comment lines are dropped
for f in "$work"/out/olm/crds/*.yaml; do
  awk 'NR==1 && !/^---*/ {print "---"} !/^[[:space:]]*#/ {print}' "$f" >>"$OUT/crds.yaml"
done
for f in "$work"/out/olm/templates/*.yaml; do
  awk 'NR==1 && !/^---*/ {print "---"} !/^[[:space:]]*#/ {print}' "$f" >>"$OUT/olm.yaml"
done
echo "wrote $OUT/crds.yaml and $OUT/olm.yaml (OLM $OLM_VERSION, opm $OPM_VERSION)"
