#!/usr/bin/env bash
# hack/olm.sh: OLM v0 on the local cluster (hack/local-cluster.sh), offline.
#
#   hack/olm.sh build            build OLM, opm, grpc_health_probe from the Go module proxy (cached) and
#                                fetch a static busybox from Debian; no cluster needed
#   hack/olm.sh images           push every image the OLM tests need to the cluster's registry: OLM, opm,
#                                busybox, scorecard-test, webapp-scorecard, the operator and bundles 0.2.0/0.3.0
#   hack/olm.sh install          apply OLM's manifests (hack/olm/manifests, images rewritten to the local
#                                registry) and wait until OLM is healthy;  `uninstall` removes it
#   hack/olm.sh test             run test/olm (after images and install): catalog v1 (stable: 0.2.0) and
#                                v2 (stable: 0.2.0; stable-v1beta1, the default: 0.2.0 and 0.3.0)
#   hack/olm.sh catalog-build IMAGE BUNDLE_VERSION...
#   hack/olm.sh catalog-build IMAGE CHANNEL=BUNDLE_VERSION[,BUNDLE_VERSION...]...
#                                render a file-based catalog (opm, basic template) of those bundle versions
#                                on channel stable, or on each CHANNEL given (the last is the default), each
#                                version replacing the one before it in its channel and skipping every
#                                version since SKIP_RANGE_FROM, and push it as IMAGE
#
# Why so many images: OLM runs everything as pods. The catalog operator unpacks bundles with Jobs made of
# the OLM image (cp, cpb), the bundle image and opm; catalogs are opm pods probed by grpc_health_probe;
# `operator-sdk run bundle` serves its catalog from an opm image through a busybox init container, and
# scorecard untars the bundle with busybox. Upstream these come from quay.io and docker.io, which this
# machine cannot reach; here each is built from source (binaries from the Go proxy, busybox from Debian)
# and pushed to the registry on the node's network ($LOCAL_CLUSTER_REGISTRY, plain HTTP).
#
# Pushing and rendering talk to the registry, which lives in the node's network namespace, so those
# steps run inside it (nsenter). Needs root (nsenter) for images/catalog-build/install.
set -euo pipefail
LOG_PREFIX=olm
. "$(dirname "$0")/lib.sh"
cd "$REPO"
OLM_BIN=$CACHE_DIR/olm/$OLM_VERSION/bin
BUSYBOX_DIR=$CACHE_DIR/busybox
REG=${LOCAL_CLUSTER_REGISTRY:-10.200.0.1:5000}
KUBECONFIG=${KUBECONFIG:-$REPO/.cache/local-cluster/kubeconfig}
KUBECTL=${KUBECTL:-kubectl}
export KUBECONFIG

# image references in the local registry, shared with test/olm (run_tests) and people (`hack/olm.sh env`)
IMAGE_VARS="OLM_IMG OPM_IMG BUSYBOX_IMG SCORECARD_TEST_IMG WEBAPP_SCORECARD_IMG OPERATOR_IMG_BASE BUNDLE_IMG_BASE DEMO_IMG_BASE"
OLM_IMG=$REG/olm:$OLM_VERSION
OPM_IMG=$REG/opm:$OPM_VERSION
BUSYBOX_IMG=$REG/busybox:local
SCORECARD_TEST_IMG=$REG/scorecard-test:$OPERATOR_SDK_VERSION
WEBAPP_SCORECARD_IMG=$REG/webapp-operator-scorecard:v0.1.0
OPERATOR_IMG_BASE=$REG/webapp-operator
BUNDLE_IMG_BASE=${BUNDLE_IMG_BASE:-$REG/webapp-operator-bundle}   # catalog-build: where the bundles are
DEMO_IMG_BASE=$REG/demoapp
CATALOG_IMG_BASE=$REG/webapp-operator-catalog
# the upgrade the tests exercise: the last release, then the working tree's version
VERSIONS=${OLM_TEST_VERSIONS:-0.2.0 0.3.0}
# The first version is built from the commit of its release tag (v0.2.0: it serves and stores
# v1alpha1 alone), so that the upgrade is the one users make: to a CRD whose storage version is
# v1beta1, converted by the new operator's webhook. Empty: every version from the working tree.
FIRST_VERSION_COMMIT=${OLM_FIRST_VERSION_COMMIT-50ec591f3bd8e7d8ff9f0a00030e763536a9690e}
# every version since this one may upgrade straight to a later one (olm.skipRange), as the Makefile's
# SKIP_RANGE_FROM says for releases
SKIP_RANGE_FROM=${OLM_SKIP_RANGE_FROM:-0.1.0}
OLM_TEST_ARGS=${OLM_TEST_ARGS:-}

# near IMAGE CMD...: CMD in the node's namespace when IMAGE lives in the local registry, else on the host
near() { local img=$1; shift; if [ "${img#"$REG"/}" != "$img" ]; then innet "$@"; else "$@"; fi; }
kctl() { "$KUBECTL" "$@"; }

# build: the binaries, each skipped when already cached
build() {
  local want="olm catalog package-server copy-content cpb opm" missing="" b
  for b in $want; do [ -x "$OLM_BIN/$b" ] || missing="$missing $b"; done
  mkdir -p "$OLM_BIN"
  if [ -n "$missing" ]; then
    log "building OLM $OLM_VERSION and opm $OPM_VERSION from the Go module proxy (cold: minutes; cached: seconds)"
    (cd hack/tools/olm && GOWORK=off CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -tags json1 \
      -ldflags "-s -w -X github.com/operator-framework/operator-lifecycle-manager/pkg/version.OLMVersion=$OLM_VERSION" \
      -o "$OLM_BIN/" github.com/operator-framework/operator-lifecycle-manager/cmd/{olm,catalog,package-server,copy-content} \
      github.com/operator-framework/operator-lifecycle-manager/util/cpb)
    # opm needs cgo (sqlite, for the deprecated index format that `opm registry` still serves); linked
    # statically so that it runs in an image with no libc
    (cd hack/tools/olm && GOWORK=off CGO_ENABLED=1 GOFLAGS=-mod=mod go build -trimpath -tags json1,containers_image_openpgp,netgo,osusergo \
      -ldflags "-s -w -extldflags -static -X github.com/operator-framework/operator-registry/cmd/opm/version.gitCommit=$OPM_VERSION -X github.com/operator-framework/operator-registry/cmd/opm/version.opmVersion=$OPM_VERSION" \
      -o "$OLM_BIN/opm" github.com/operator-framework/operator-registry/cmd/opm)
  fi
  if [ ! -x "$OLM_BIN/grpc_health_probe" ]; then
    log "building grpc_health_probe $GRPC_HEALTH_PROBE_VERSION"
    (cd hack/tools/olm && GOWORK=off CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" \
      -o "$OLM_BIN/grpc_health_probe" github.com/grpc-ecosystem/grpc-health-probe)
  fi
  if [ ! -x "$BUSYBOX_DIR/busybox" ]; then
    log "fetching Debian's busybox-static (unpacked into $BUSYBOX_DIR, not installed on the host)"
    local tmp; tmp=$(mktemp -d)
    (cd "$tmp" && { apt-get download busybox-static >/dev/null 2>&1 || { apt-get update -qq && apt-get download busybox-static >/dev/null; }; } &&
      dpkg-deb -x busybox-static_*.deb x)
    mkdir -p "$BUSYBOX_DIR" && cp "$tmp/x/bin/busybox" "$BUSYBOX_DIR/busybox"
    rm -rf "$tmp"
  fi
}

# rootfs DIR: a fresh directory for an image's file system, with /tmp and a busybox in /bin
rootfs() {
  local d=$1 a
  rm -rf "$d" && mkdir -p "$d/bin" "$d/tmp" "$d/etc"
  chmod 1777 "$d/tmp"
  cp "$BUSYBOX_DIR/busybox" "$d/bin/busybox"
  for a in sh cat cp gzip tar mkdir ls rm mv ln sleep echo env true; do ln -s busybox "$d/bin/$a"; done
  printf 'root:x:0:0:root:/root:/bin/sh\nnonroot:x:1001:1001:nonroot:/tmp:/bin/sh\n' >"$d/etc/passwd"
  # opm writes a default nsswitch.conf when there is none, which a non-root user cannot
  echo 'hosts: files dns' >"$d/etc/nsswitch.conf"
  printf 'root:x:0:\nnonroot:x:1001:\n' >"$d/etc/group"
}

images() {
  build
  [ -e "/run/netns/$LOCAL_CLUSTER_NETNS" ] || die "the local cluster is not up (hack/local-cluster.sh up)"
  # mkimage is compiled on the host (the namespace has no route to the Go proxy), then run inside it
  go build -o bin/mkimage ./hack/mkimage
  # -tag is the last argument of every push, so the log names the image
  local pushed=()
  push_() { innet bin/mkimage "$@" -push >/dev/null; log "pushed ${*: -1}"; pushed+=("${*: -1}"); }
  local w; w=$(mktemp -d); trap 'rm -rf "$w"' RETURN

  rootfs "$w/olm"
  cp "$OLM_BIN"/{olm,catalog,package-server,copy-content,cpb} "$w/olm/bin/"
  push_ rootfs -dir "$w/olm" -entrypoint '["/bin/olm"]' -user 1001 -env PATH=/bin -tag "$OLM_IMG"

  rootfs "$w/opm"
  cp "$OLM_BIN"/{opm,grpc_health_probe} "$w/opm/bin/"
  mkdir -p "$w/opm/configs"
  push_ rootfs -dir "$w/opm" -entrypoint '["/bin/opm"]' -cmd '["serve","/configs","--cache-dir=/tmp/cache"]' \
    -user 1001 -env PATH=/bin -label operators.operatorframework.io.index.configs.v1=/configs -tag "$OPM_IMG"

  rootfs "$w/busybox"
  push_ rootfs -dir "$w/busybox" -env PATH=/bin -tag "$BUSYBOX_IMG"
  # run bundle-upgrade's registry pod needs registry.access.redhat.com/ubi9/ubi:9.8 (no flag overrides it);
  # the node mirrors that registry to ours (hack/local-cluster.sh)
  push_ rootfs -dir "$w/busybox" -env PATH=/bin -tag "$REG/ubi9/ubi:9.8"

  make -s scorecard-test >/dev/null
  rootfs "$w/sc"
  mkdir -p "$w/sc/usr/local/bin" && cp bin/scorecard-test "$w/sc/usr/local/bin/"
  push_ rootfs -dir "$w/sc" -entrypoint '["/usr/local/bin/scorecard-test"]' -user 1001 \
    -env PATH=/usr/local/bin:/bin -tag "$SCORECARD_TEST_IMG"

  CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$w/webapp-scorecard" ./test/scorecard
  rootfs "$w/wsc"
  mkdir -p "$w/wsc/usr/local/bin" && cp "$w/webapp-scorecard" "$w/wsc/usr/local/bin/"
  push_ rootfs -dir "$w/wsc" -entrypoint '["/usr/local/bin/webapp-scorecard"]' -user 1001 \
    -env PATH=/usr/local/bin:/bin -tag "$WEBAPP_SCORECARD_IMG"

  local v t digest
  for t in v1 v2; do
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$t" -o "$w/demoapp" ./test/demoapp
    push_ binary -binary "$w/demoapp" -name demoapp -tag "$DEMO_IMG_BASE:$t"
  done
  # each version is its own build (it prints its version), as a release's would be: the multi-arch
  # index of `make image-tarball`, and a bundle that names it by digest (`make bundle-pinned`)
  local src
  for v in $VERSIONS; do
    src=$(source_of "$v" "$w")
    make -s -C "$src" manager-binaries VERSION="$v"
    digest=$(innet bin/mkimage manager $(printf -- '-binary %s ' "$src"/bin/manager-linux-*) -tag "$OPERATOR_IMG_BASE:v$v" -push | cut -f2)
    log "pushed $OPERATOR_IMG_BASE:v$v ($digest), built from $([ "$src" = "$REPO" ] && echo "the working tree" || echo "$FIRST_VERSION_COMMIT")"
    bundle_dir "$v" "$w/bundle-$v" "$digest" "$src"
    push_ bundle -dir "$w/bundle-$v/pinned" -dockerfile "$w/bundle-$v/bundle.Dockerfile" -tag "$BUNDLE_IMG_BASE:v$v"
  done
  # tags are reused from run to run: make the node pull what was just pushed
  hack/local-cluster.sh forget-images "${pushed[@]}"
}

# source_of VERSION WORKDIR: the source tree VERSION is built from: the working tree, or, for the
# first version, FIRST_VERSION_COMMIT's files extracted under WORKDIR
source_of() {
  local v=$1 w=$2
  if [ "$v" != "${VERSIONS%% *}" ] || [ -z "$FIRST_VERSION_COMMIT" ]; then echo "$REPO"; return; fi
  mkdir -p "$w/src-$v"
  git -C "$REPO" archive "$FIRST_VERSION_COMMIT" | tar -x -C "$w/src-$v"
  echo "$w/src-$v"
}

# bundle_dir VERSION DIR DIGEST SRC: `make bundle` for VERSION with the local images, in a copy of the
# project (SRC's tracked files) so the working tree is left alone, then `make bundle-pinned` into
# DIR/pinned with the operator image named by DIGEST. Each version after the first replaces the one
# before it and skips every version since SKIP_RANGE_FROM (olm.skipRange), as docs/olm.md describes
# for releases.
bundle_dir() {
  local v=$1 d=$2 digest=$3 src=${4:-$REPO} prev=""
  for x in $VERSIONS; do [ "$x" = "$v" ] && break; prev=$x; done
  mkdir -p "$d"
  if [ "$src" = "$REPO" ]; then
    git ls-files -z --cached --others --exclude-standard | grep -zv '^bundle/' | xargs -0 cp --parents -t "$d"
  else
    (cd "$src" && find . -path ./bin -prune -o -path ./bundle -prune -o -type f -print0 | xargs -0 cp --parents -t "$d")
  fi
  ln -s "$REPO/bin" "$d/bin"
  make -s -C "$d" bundle VERSION="$v" IMG="$OPERATOR_IMG_BASE:v$v" SCORECARD_IMG="$WEBAPP_SCORECARD_IMG" \
    REPLACES="$prev" SKIP_RANGE_FROM="$([ -n "$prev" ] && echo "$SKIP_RANGE_FROM")" LOCALBIN="$REPO/bin" >/dev/null 2>"$d/bundle.log" ||
    { cat "$d/bundle.log" >&2; die "make bundle VERSION=$v failed"; }
  make -s -C "$d" bundle-pinned IMG="$OPERATOR_IMG_BASE:v$v" IMG_DIGEST="$digest" PINNED_DIR="$d/pinned" \
    LOCALBIN="$REPO/bin" >/dev/null 2>"$d/bundle.log" || { cat "$d/bundle.log" >&2; die "make bundle-pinned VERSION=$v failed"; }
}

# catalog-build IMAGE VERSION... | IMAGE CHANNEL=VERSION[,VERSION...]...: a file-based catalog of those
# bundles, served by the opm image. Plain versions make one channel, stable; otherwise each argument
# is a channel, and the last one is the package's default.
catalog_build() {
  local img=$1; shift
  [ $# -gt 0 ] || die "usage: $0 catalog-build IMAGE BUNDLE_VERSION... | IMAGE CHANNEL=BUNDLE_VERSION[,...]..."
  local channels=() arg
  if [ "${1#*=}" = "$1" ]; then channels=("stable=$(IFS=,; echo "$*")"); else channels=("$@"); fi
  build
  local w; w=$(mktemp -d); trap 'rm -rf "$w"' RETURN
  local channel versions prev v all=()
  {
    printf 'schema: olm.template.basic\nentries:\n'
    printf -- '- schema: olm.package\n  name: webapp-operator\n  defaultChannel: %s\n' "${channels[-1]%%=*}"
    for arg in "${channels[@]}"; do
      channel=${arg%%=*} versions=${arg#*=} prev=""
      [ "$channel" != "$arg" ] || die "catalog-build: $arg is not CHANNEL=VERSION[,VERSION...]"
      printf -- '- schema: olm.channel\n  package: webapp-operator\n  name: %s\n  entries:\n' "$channel"
      for v in ${versions//,/ }; do
        printf -- '  - name: webapp-operator.v%s\n' "$v"
        if [ -n "$prev" ]; then printf "    replaces: webapp-operator.v%s\n    skipRange: '>=%s <%s'\n" "$prev" "$SKIP_RANGE_FROM" "$v"; fi
        prev=$v
        [[ " ${all[*]} " = *" $v "* ]] || all+=("$v")
      done
    done
  } >"$w/template.yaml"
  # the catalog names each bundle by digest, as a release catalog does: what was tested is what installs
  go build -o bin/mkimage ./hack/mkimage
  for v in "${all[@]}"; do
    printf -- '- schema: olm.bundle\n  image: %s@%s\n' "$BUNDLE_IMG_BASE" "$(near "$BUNDLE_IMG_BASE" bin/mkimage digest "$BUNDLE_IMG_BASE:v$v")"
  done >>"$w/template.yaml"
  rootfs "$w/root"
  cp "$OLM_BIN"/{opm,grpc_health_probe} "$w/root/bin/"
  mkdir -p "$w/root/configs/webapp-operator"
  # opm pulls the bundle images (the local registry: from inside the node's namespace, over plain HTTP)
  local http=""; [ "${BUNDLE_IMG_BASE#"$REG"/}" != "$BUNDLE_IMG_BASE" ] && http=--use-http
  scratch_home "$w/home"
  HOME=$w/home near "$BUNDLE_IMG_BASE" "$OLM_BIN/opm" alpha render-template basic "$w/template.yaml" -o yaml $http \
    >"$w/root/configs/webapp-operator/catalog.yaml"
  "$OLM_BIN/opm" validate "$w/root/configs"
  # the image's command, `opm serve --cache-dir`, refuses to start without a cache that matches the
  # catalog (--cache-enforce-integrity): build it into the image, as `opm generate dockerfile` does
  "$OLM_BIN/opm" serve "$w/root/configs" --cache-dir="$w/root/tmp/cache" --cache-only >/dev/null 2>&1
  # owned by the user the image runs as: opm takes a lock file in it
  chown -R 1001:1001 "$w/root/tmp/cache"
  near "$img" bin/mkimage rootfs -dir "$w/root" -entrypoint '["/bin/opm"]' -cmd '["serve","/configs","--cache-dir=/tmp/cache"]' \
    -user 1001 -env PATH=/bin -label operators.operatorframework.io.index.configs.v1=/configs -push -tag "$img" >/dev/null
  log "pushed catalog $img: webapp-operator ${channels[*]} (default ${channels[-1]%%=*})"
  [ "${img#"$REG"/}" = "$img" ] || hack/local-cluster.sh forget-images "$img"
}

# manifests: OLM's release manifests (hack/olm/manifests, rendered by hack/olm/render-manifests.sh) with the
# images rewritten to the local registry, and without the operatorhub.io CatalogSource (quay.io is out of reach)
manifests() {
  cat hack/olm/manifests/crds.yaml
  awk -v RS='\n---\n' -v ORS='\n---\n' '!/\nkind: CatalogSource\n/' hack/olm/manifests/olm.yaml |
    sed -e "s#quay.io/operator-framework/olm:$OLM_VERSION#$OLM_IMG#" -e "s#quay.io/operator-framework/opm:$OPM_VERSION#$OPM_IMG#"
}

install() {
  log "installing OLM $OLM_VERSION"
  manifests >/tmp/olm-manifests.$$.yaml
  kctl apply --server-side --force-conflicts -f /tmp/olm-manifests.$$.yaml >/dev/null 2>&1 ||
    # CRDs first: the OperatorGroups and the packageserver CSV need them established
    { kctl apply --server-side --force-conflicts -f hack/olm/manifests/crds.yaml >/dev/null &&
      kctl wait --for=condition=Established crd --all --timeout=60s >/dev/null &&
      kctl apply --server-side --force-conflicts -f /tmp/olm-manifests.$$.yaml >/dev/null; }
  rm -f /tmp/olm-manifests.$$.yaml
  kctl -n olm rollout status deploy/olm-operator --timeout=180s >/dev/null
  kctl -n olm rollout status deploy/catalog-operator --timeout=180s >/dev/null
  log "olm-operator and catalog-operator available"
  local i
  for i in $(seq 1 180); do
    [ "$(kctl -n olm get csv packageserver -o jsonpath='{.status.phase}' 2>/dev/null)" = Succeeded ] && break
    [ "$i" = 180 ] && { kctl -n olm get csv,pods -o wide >&2; die "packageserver CSV did not succeed in 180 s"; }
    sleep 1
  done
  kctl wait --for=condition=Available apiservice/v1.packages.operators.coreos.com --timeout=120s >/dev/null
  log "OLM healthy: packageserver Succeeded, packages.operators.coreos.com served"
}

uninstall() {
  manifests | kctl delete --ignore-not-found --wait=true -f - >/dev/null 2>&1 || true
  kctl wait --for=delete namespace/olm namespace/operators --timeout=180s >/dev/null 2>&1 || true
  log "OLM removed"
}

# scratch_home DIR: a HOME for opm and operator-sdk, whose image library (containers/image) refuses to
# pull without a signature policy; the images are our own, from our registry, so any is accepted
scratch_home() {
  mkdir -p "$1/.config/containers"
  echo '{"default":[{"type":"insecureAcceptAnything"}]}' >"$1/.config/containers/policy.json"
}

# test: the OLM suite (test/olm), inside the node's namespace where the registry, the API server and
# ClusterIPs are reachable; `images` and `install` first (make test-olm does)
# Catalog v2 keeps stable as v1 has it and adds the new version on a new default channel: an
# OwnNamespace install subscribed to stable never meets a bundle whose conversion webhook its
# OperatorGroup refuses (docs/olm.md).
run_tests() {
  local old=${VERSIONS% *}
  catalog_build "$CATALOG_IMG_BASE:v1" "stable=$old"
  catalog_build "$CATALOG_IMG_BASE:v2" "stable=$old" "stable-v1beta1=${VERSIONS// /,}"
  go test -c -o bin/olm.test ./test/olm
  local v
  for v in $IMAGE_VARS; do export "$v"; done
  export CATALOG_V1_IMG=$CATALOG_IMG_BASE:v1 CATALOG_V2_IMG=$CATALOG_IMG_BASE:v2 BUNDLE_DIR=$REPO/bundle
  # what each version's CSV runs: the operator image by digest (version=image, space-separated)
  OPERATOR_IMGS=""
  for v in $VERSIONS; do
    OPERATOR_IMGS="$OPERATOR_IMGS $v=$OPERATOR_IMG_BASE@$(innet bin/mkimage digest "$OPERATOR_IMG_BASE:v$v")"
  done
  export OPERATOR_IMGS
  # operator-sdk reads the labels of --index-image over HTTPS only: the registry answers HTTPS too, with a
  # certificate of the cluster's CA (hack/registry)
  export SSL_CERT_FILE=${LOCAL_CLUSTER_CA:-$REPO/.cache/local-cluster/pki/ca.crt}
  export OPERATOR_SDK=${OPERATOR_SDK:-$REPO/bin/operator-sdk} KUBECTL KUBECONFIG=${LOCAL_CLUSTER_NODE_KUBECONFIG:-$REPO/.cache/local-cluster/etc/kubernetes/admin-node.kubeconfig}
  # operator-sdk keeps pulled bundle images under $HOME: a scratch one
  local home; home=$(mktemp -d); trap 'rm -rf "$home"' RETURN
  scratch_home "$home"
  (cd test/olm && HOME=$home innet "$REPO/bin/olm.test" -test.v -test.timeout 40m -ginkgo.v -ginkgo.label-filter='!olmv1' $OLM_TEST_ARGS)
}

case "${1:-}" in
  build) build ;;
  images) images ;;
  install) install ;;
  uninstall) uninstall ;;
  manifests) manifests ;;
  catalog-build) shift; catalog_build "$@" ;;
  test) run_tests ;;
  env)
    for v in $IMAGE_VARS; do
      echo "export $v=${!v}"
    done ;;
  *) sed -n '2,19p' "$0" >&2; exit 2 ;;
esac
