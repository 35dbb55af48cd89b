#!/usr/bin/env bash
# hack/olmv1.sh: OLM v1 (operator-controller and catalogd) on the local cluster (hack/local-cluster.sh), offline.
#
#   hack/olmv1.sh build        build operator-controller and catalogd from the Go module proxy (cached)
#   hack/olmv1.sh images       push their images to the cluster's registry
#   hack/olmv1.sh install      apply OLM v1's release manifest (images rewritten to the local registry,
#                              certificates from the cluster's CA instead of cert-manager) and wait
#   hack/olmv1.sh uninstall    remove it
#   hack/olmv1.sh test         run test/olm's OLM v1 specs (after `hack/olm.sh images`, images, install)
#
# The release manifest is the module's own manifests/experimental.yaml, run as the standard feature set
# plus watchNamespace (manifests, below). It asks cert-manager for three
# certificates: catalogd's HTTPS server, operator-controller's metrics server and the CA both trust.
# Here they are signed by the local cluster's CA (hack/local-cluster/pki.sh), which also signs the
# registry's HTTPS certificate, so one CA file lets catalogd and operator-controller pull from the
# registry and talk to each other. cert-manager is not needed otherwise: it only issues certificates for
# bundles that ship webhooks, and webapp-operator's has none, so WebhookProviderCertManager is off.
# SingleOwnNamespaceInstallSupport (alpha) is on, for ClusterExtensions with config.inline.watchNamespace.
#
# The Go module proxy refuses every version of pkg.package-operator.run/boxcutter (403), which
# operator-controller imports. build reads it from a file proxy in $CACHE_DIR/olmv1/goproxy, tried before
# the Go module proxy; the go command checks its zip against hack/tools/olmv1/go.sum, which holds
# operator-controller's own checksum of it, so only the exact release builds. docs/olm.md says how to
# make that zip.
set -euo pipefail
LOG_PREFIX=olmv1
. "$(dirname "$0")/lib.sh"
cd "$REPO"
BIN_DIR=$CACHE_DIR/olmv1/$OPERATOR_CONTROLLER_VERSION/bin
GOPROXY_DIR=$CACHE_DIR/olmv1/goproxy
REG=${LOCAL_CLUSTER_REGISTRY:-10.200.0.1:5000}
KUBECONFIG=${KUBECONFIG:-$REPO/.cache/local-cluster/kubeconfig}
KUBECTL=${KUBECTL:-kubectl}
PKI=${LOCAL_CLUSTER_PKI:-$REPO/.cache/local-cluster/pki}
export KUBECONFIG
CATALOGD_IMG=$REG/catalogd:$OPERATOR_CONTROLLER_VERSION
OPERATOR_CONTROLLER_IMG=$REG/operator-controller:$OPERATOR_CONTROLLER_VERSION
NS=olmv1-system
kctl() { "$KUBECTL" "$@"; }
tools() { (cd hack/tools/olmv1 && GOWORK=off GOFLAGS=-mod=mod GOPROXY="file://$GOPROXY_DIR,${GOPROXY:-https://proxy.golang.org}" "$@"); }

build() {
  [ -x "$BIN_DIR/catalogd" ] && [ -x "$BIN_DIR/operator-controller" ] && return
  [ -f "$GOPROXY_DIR/pkg.package-operator.run/boxcutter/@v/$OLMV1_BOXCUTTER_VERSION.zip" ] ||
    die "no pkg.package-operator.run/boxcutter $OLMV1_BOXCUTTER_VERSION in $GOPROXY_DIR (the Go module proxy refuses it): see docs/olm.md"
  log "building operator-controller and catalogd $OPERATOR_CONTROLLER_VERSION from the Go module proxy (cold: minutes; cached: seconds)"
  mkdir -p "$BIN_DIR"
  tools env CGO_ENABLED=0 go build -trimpath -tags containers_image_openpgp \
    -ldflags "-s -w -X github.com/operator-framework/operator-controller/internal/shared/version.version=$OPERATOR_CONTROLLER_VERSION" \
    -o "$BIN_DIR/" github.com/operator-framework/operator-controller/cmd/{catalogd,operator-controller}
}

images() {
  build
  [ -e "/run/netns/$LOCAL_CLUSTER_NETNS" ] || die "the local cluster is not up (hack/local-cluster.sh up)"
  go build -o bin/mkimage ./hack/mkimage
  local b img
  for b in catalogd operator-controller; do
    img=$REG/$b:$OPERATOR_CONTROLLER_VERSION
    innet bin/mkimage binary -binary "$BIN_DIR/$b" -name "$b" -tag "$img" -push >/dev/null
    log "pushed $img"
    hack/local-cluster.sh forget-images "$img"
  done
}

# manifests: the release's experimental manifest, whose ClusterExtension CRD has spec.config (the standard
# one drops it, so watchNamespace cannot even be written), with the standard feature set's gates but
# SingleOwnNamespaceInstallSupport; without cert-manager's objects; with the local images; and no
# control-plane node selector (the local node has no such role)
manifests() {
  local dir
  dir=$(tools go list -m -f '{{.Dir}}' github.com/operator-framework/operator-controller)
  awk -v RS='\n---\n' -v ORS='\n---\n' '!/\nkind: (Certificate|Issuer|ClusterIssuer)\n/' "$dir/manifests/experimental.yaml" |
    sed -e "s#quay.io/operator-framework/catalogd:devel#$CATALOGD_IMG#" \
      -e "s#quay.io/operator-framework/operator-controller:devel#$OPERATOR_CONTROLLER_IMG#" \
      -e 's#\(WebhookProviderCertManager\|BoxcutterRuntime\|BundleReleaseSupport\|DeploymentConfig\)=true#\1=false#' \
      -e 's#\(APIV1MetasHandler\|GraphQLCatalogQueries\)=true#\1=false#' \
      -e 's#SingleOwnNamespaceInstallSupport=false#SingleOwnNamespaceInstallSupport=true#' \
      -e '/node-role.kubernetes.io\/control-plane: ""/d'
}

# cert_secret NAME DNS...: a Secret NAME in $NS with a serving certificate for the DNS names, signed by
# the cluster's CA, and that CA as ca.crt (what cert-manager's CA issuer would write)
cert_secret() {
  local name=$1 w sans; shift
  w=$(mktemp -d)
  sans=$(printf 'DNS:%s,' "$@")
  openssl req -new -newkey rsa:2048 -nodes -keyout "$w/tls.key" -subj "/CN=$1" -out "$w/csr" 2>/dev/null
  printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=%s\n' \
    "${sans%,}" >"$w/ext"
  openssl x509 -req -in "$w/csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial -CAserial "$w/srl" \
    -out "$w/tls.crt" -days 365 -extfile "$w/ext" 2>/dev/null
  cp "$PKI/ca.crt" "$w/ca.crt"
  kctl -n "$NS" create secret tls "$name" --cert "$w/tls.crt" --key "$w/tls.key" --dry-run=client -o yaml |
    sed "s#^data:#data:\n  ca.crt: $(base64 -w0 "$w/ca.crt")#" | kctl apply --server-side -f - >/dev/null
  rm -rf "$w"
}

install() {
  log "installing OLM v1 $OPERATOR_CONTROLLER_VERSION"
  manifests | kctl apply --server-side --force-conflicts -f - >/dev/null
  cert_secret catalogd-service-cert-git-version localhost catalogd-service.$NS.svc catalogd-service.$NS.svc.cluster.local
  cert_secret operator-controller-cert operator-controller-service.$NS.svc operator-controller-service.$NS.svc.cluster.local
  # what cert-manager's CA injector would do: the API server trusts catalogd's webhook
  kctl patch mutatingwebhookconfiguration catalogd-mutating-webhook-configuration --type=json \
    -p "[{\"op\":\"add\",\"path\":\"/webhooks/0/clientConfig/caBundle\",\"value\":\"$(base64 -w0 "$PKI/ca.crt")\"}]" >/dev/null
  kctl -n "$NS" rollout status deploy/catalogd-controller-manager --timeout=180s >/dev/null
  kctl -n "$NS" rollout status deploy/operator-controller-controller-manager --timeout=180s >/dev/null
  log "OLM v1 healthy: catalogd and operator-controller available"
}

uninstall() {
  manifests | kctl delete --ignore-not-found --wait=true -f - >/dev/null 2>&1 || true
  log "OLM v1 removed"
}

# test: test/olm's OLM v1 specs, inside the node's namespace; the catalogs are hack/olm.sh's
# (the same two as test-olm: v1 has 0.2.0 on stable; v2 adds 0.3.0 on the new default channel
# stable-v1beta1, whose upgrade edge a ClusterExtension without a channel follows)
run_tests() {
  local v versions=${OLM_TEST_VERSIONS:-0.2.0 0.3.0}
  hack/olm.sh catalog-build "$REG/webapp-operator-catalog:v1" "stable=${versions% *}"
  hack/olm.sh catalog-build "$REG/webapp-operator-catalog:v2" "stable=${versions% *}" "stable-v1beta1=${versions// /,}"
  go test -c -o bin/olm.test ./test/olm
  eval "$(hack/olm.sh env)"
  export CATALOG_V1_IMG=$REG/webapp-operator-catalog:v1 CATALOG_V2_IMG=$REG/webapp-operator-catalog:v2 BUNDLE_DIR=$REPO/bundle
  OPERATOR_IMGS=""
  for v in $versions; do
    OPERATOR_IMGS="$OPERATOR_IMGS $v=$OPERATOR_IMG_BASE@$(innet bin/mkimage digest "$OPERATOR_IMG_BASE:v$v")"
  done
  export OPERATOR_IMGS KUBECTL KUBECONFIG=${LOCAL_CLUSTER_NODE_KUBECONFIG:-$REPO/.cache/local-cluster/etc/kubernetes/admin-node.kubeconfig}
  (cd test/olm && innet "$REPO/bin/olm.test" -test.v -test.timeout 30m -ginkgo.v -ginkgo.label-filter=olmv1 ${OLMV1_TEST_ARGS:-})
}

case "${1:-}" in
  build) build ;;
  images) images ;;
  install) install ;;
  uninstall) uninstall ;;
  manifests) manifests ;;
  test) run_tests ;;
  *) sed -n '2,9p' "$0" >&2; exit 2 ;;
esac
