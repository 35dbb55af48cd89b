#!/usr/bin/env bash
# hack/local-cluster.sh prepare|up|down|status|env|load-image TARBALL...
#
# A real single-node Kubernetes cluster on this machine, where pods really run: etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler, kubelet, kube-proxy (iptables), containerd + runc, bridge CNI
# and CoreDNS. No registry, no docker, no systemd, no internet:
#   - Kubernetes, etcd and CoreDNS (versions: hack/versions.env) are built from the Go module proxy and
#     cached in ~/.cache/webapp-operator (shared by every clone; hack/install-envtest-bins.sh WITH_NODE=1);
#   - containerd, runc, CNI plugins, iptables, conntrack and socat come from Debian (installed if missing);
#   - images are tarballs built by hack/mkimage and imported into the node's containerd (`load-image`);
#     pods must use imagePullPolicy IfNotPresent or Never.
#
# The node lives in a network namespace of its own (LOCAL_CLUSTER_NETNS, default webapp-lc): every address
# the cluster uses is either loopback or inside that namespace (node IP 10.200.0.1, pods 10.244.0.0/24,
# services 10.96.0.0/12, CoreDNS on the node IP). From the host, the API server is reachable at
# https://127.0.0.1:$LOCAL_CLUSTER_API_PORT (default 16443) through a socat forwarder; anything else
# (pod IPs, ClusterIPs) is reachable with `nsenter --net=/run/netns/webapp-lc ...`.
#
# `prepare` only installs the packages and builds the binaries (what `up` does first).
# All state is under .cache/local-cluster in the repository. `down` stops what `up` started (by PID),
# removes mounts, interfaces, the namespace, cgroups and the host paths containerd/kubelet hard-code, and
# restores the host sysctls the kubelet changes. `up` twice and `down` with nothing up are safe.
# hack/host-snapshot.sh checks that the host is unchanged after up + down.
set -euo pipefail

LOG_PREFIX=local-cluster
. "$(dirname "$0")/lib.sh"
STATE=${LOCAL_CLUSTER_DIR:-$REPO/.cache/local-cluster}
TEMPLATES=$REPO/hack/local-cluster/templates
BIN=$K8S_BIN
COREDNS_BIN=$CACHE_DIR/coredns/$COREDNS_VERSION/coredns
NETNS=$LOCAL_CLUSTER_NETNS
NSPATH=/run/netns/$NETNS
API_PORT=${LOCAL_CLUSTER_API_PORT:-16443}
NODE=local-node
NODEIP=10.200.0.1
NODEIF=lcnode0      # a port-less bridge carrying the node IP (this kernel has no dummy driver)
CNIBR=lccni0
POD_CIDR=10.244.0.0/24
SVC_CIDR=10.96.0.0/12
RUN=$STATE/run VAR=$STATE/var LOGS=$STATE/logs ETC=$STATE/etc PKI=$STATE/pki
SOCK=$RUN/containerd/containerd.sock
KUBECONFIG_HOST=$STATE/kubeconfig                 # for people and tests on the host: 127.0.0.1:API_PORT
KC_NODE=$ETC/kubernetes/admin-node.kubeconfig      # for processes inside the namespace: NODEIP:6443
PAUSE_IMAGE=localhost/pause:local
# An OCI registry on the node's network (plain HTTP; hack/registry): OLM pulls bundle and catalog images
# by reference, so they must be served by a registry. containerd pulls from it over HTTP (certs.d); the
# same port answers HTTPS too (certificate of the cluster's CA) for operator-sdk (hack/registry).
REGISTRY=$NODEIP:${LOCAL_CLUSTER_REGISTRY_PORT:-5000}
export PATH=$BIN:$PATH

WAIT_FOR_HINT="logs: $LOGS"
kctl() { kubectl --kubeconfig "$KUBECONFIG_HOST" "$@"; }
ctr_() { ctr --address "$SOCK" -n k8s.io "$@"; }
running() { [ -f "$RUN/$1.pid" ] && alive "$(cat "$RUN/$1.pid")"; }

# start NAME [innet] CMD...: a background process in a session of its own, its PID in run/NAME.pid
start() {
  local n=$1; shift
  if running "$n"; then log "$n already running (pid $(cat "$RUN/$n.pid"))"; return; fi
  if [ "$1" = innet ]; then shift; set -- nsenter --net="$NSPATH" "$@"; fi
  # setsid execs (the script's background jobs are not group leaders), so $! is the process itself
  setsid "$@" >>"$LOGS/$n.log" 2>&1 </dev/null &
  echo $! >"$RUN/$n.pid"
}
# stop NAME...: SIGTERM to each process and its session, SIGKILL after 10 s
stop() {
  local n f pid pids=()
  for n in "$@"; do
    f=$RUN/$n.pid
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    if alive "$pid"; then kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true; pids+=("$n:$pid"); fi
  done
  for _ in $(seq 1 50); do
    local left=0
    for n in "${pids[@]}"; do alive "${n#*:}" && left=1; done
    [ "$left" = 0 ] && break
    sleep 0.2
  done
  for n in "$@"; do
    f=$RUN/$n.pid
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    if alive "$pid"; then log "$n did not stop in 10 s: SIGKILL"; kill -KILL "$pid" 2>/dev/null || true; fi
    # what is left of its session (socat's per-connection children, for instance)
    kill -KILL -- "-$pid" 2>/dev/null || true
    rm -f "$f"
  done
}
ensure_packages() {
  local need="" p
  for p in containerd runc containernetworking-plugins iptables conntrack socat openssl util-linux iproute2; do
    dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
  done
  [ -z "$need" ] && return 0
  log "installing Debian packages:$need (about 30 s; no service is started)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null
}

ensure_binaries() {
  local b missing=""
  for b in etcd kube-apiserver kube-controller-manager kube-scheduler kube-proxy kubelet kubectl; do
    [ -x "$BIN/$b" ] || missing="$missing $b"
  done
  if [ -n "$missing" ]; then
    log "building$missing $K8S_VERSION from the Go module proxy into $BIN"
    WITH_NODE=1 "$REPO/hack/install-envtest-bins.sh" >/dev/null
  fi
  # the registry is this clone's code: rebuilt when it changes (a second or two)
  mkdir -p "$STATE/bin"
  (cd "$REPO" && CGO_ENABLED=0 go build -trimpath -o "$STATE/bin/registry" ./hack/registry)
  if [ ! -x "$COREDNS_BIN" ]; then
    log "building CoreDNS $COREDNS_VERSION from the Go module proxy"
    mkdir -p "$(dirname "$COREDNS_BIN")"
    GOWORK=off GOBIN=$(dirname "$COREDNS_BIN") CGO_ENABLED=0 GOFLAGS= go install -trimpath -ldflags "-s -w" \
      "github.com/coredns/coredns@$COREDNS_VERSION"
  fi
}

# pull_from_local_registry HOST SERVER: containerd pulls images named HOST/... from our registry over
# plain HTTP (SERVER is where it would go otherwise, and only matters for HOST = our registry itself)
pull_from_local_registry() {
  mkdir -p "$ETC/containerd/certs.d/$1"
  MIRRORED_HOST=$1 MIRRORED_SERVER=$2 render "$TEMPLATES/hosts.toml" >"$ETC/containerd/certs.d/$1/hosts.toml"
}

write_configs() {
  mkdir -p "$RUN/containerd/state" "$VAR/containerd/root" "$VAR/opt" "$VAR/etcd" "$VAR/kubelet" "$VAR/cni/networks" \
    "$VAR/cni/cache" "$VAR/log/pods" "$LOGS" "$ETC/cni/net.d" "$ETC/kubernetes/manifests" "$STATE/images"
  "$REPO/hack/local-cluster/pki.sh" "$PKI" "$NODE" "$NODEIP"
  render "$TEMPLATES/containerd.toml" >"$ETC/containerd.toml"
  pull_from_local_registry "$REGISTRY" "http://$REGISTRY"
  # a mirror, as disconnected clusters have: `operator-sdk run bundle-upgrade` has no flag for the image of
  # its registry pod's init container and hard-codes registry.access.redhat.com/ubi9/ubi:9.8 (hack/olm.sh
  # pushes a busybox under that name, which does the same job: cat and gzip)
  pull_from_local_registry registry.access.redhat.com https://registry.access.redhat.com
  render "$TEMPLATES/10-localbridge.conflist" >"$ETC/cni/net.d/10-localbridge.conflist"
  echo "nameserver $NODEIP" >"$ETC/resolv.conf"
  local c server
  for c in admin-node:admin:$NODEIP:6443 kubelet:kubelet:$NODEIP:6443 controller-manager:controller-manager:$NODEIP:6443 \
    scheduler:scheduler:$NODEIP:6443 kube-proxy:kube-proxy:$NODEIP:6443 host:admin:127.0.0.1:$API_PORT; do
    IFS=: read -r name cert server port <<<"$c"
    local f=$ETC/kubernetes/$name.kubeconfig
    [ "$name" = host ] && f=$KUBECONFIG_HOST
    KC_SERVER=$server:$port KC_USER=$name KC_CERT=$cert render "$TEMPLATES/kubeconfig" >"$f"
  done
  render "$TEMPLATES/kubelet-config.yaml" >"$ETC/kubernetes/kubelet-config.yaml"
  cp "$TEMPLATES/audit-policy.yaml" "$ETC/kubernetes/audit-policy.yaml"
  render "$TEMPLATES/Corefile" >"$ETC/Corefile"
}

# The kubelet (protectKernelDefaults=false) rewrites some host-wide sysctls; `down` puts them back.
# net.* sysctls are per network namespace: kube-proxy and the CNI plugin only change the node's.
SYSCTLS="vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys kernel.keys.root_maxbytes"
save_host_state() {
  mkdir -p "$RUN"
  if [ ! -f "$RUN/sysctl.saved" ]; then
    local k; for k in $SYSCTLS; do echo "$k=$(sysctl -n "$k" 2>/dev/null)"; done >"$RUN/sysctl.saved"
  fi
  # `ip netns add` turns /run/netns into a shared mount point: remember whether it already was one
  if [ ! -f "$RUN/netns-dir.saved" ]; then
    if mountpoint -q /run/netns 2>/dev/null; then echo mounted; elif [ -d /run/netns ]; then echo dir; else echo absent; fi >"$RUN/netns-dir.saved"
  fi
}
restore_sysctls() {
  [ -f "$RUN/sysctl.saved" ] || return 0
  local kv; while read -r kv; do if [ -n "${kv#*=}" ]; then sysctl -qw "$kv" 2>/dev/null || true; fi; done <"$RUN/sysctl.saved"
  rm -f "$RUN/sysctl.saved"
}

net_up() {
  if [ ! -e "$NSPATH" ]; then
    ip netns add "$NETNS"
    innet ip link set lo up
    innet ip link add "$NODEIF" type bridge
    innet ip addr add "$NODEIP/32" dev "$NODEIF"
    innet ip link set "$NODEIF" up
    # components want a default route; nothing leaves the namespace (it has no link to the host)
    innet ip route add default dev "$NODEIF"
    innet sysctl -qw net.ipv4.ip_forward=1
    innet sysctl -qw net.bridge.bridge-nf-call-iptables=1 2>/dev/null || true
    log "network namespace $NETNS: node IP $NODEIP"
  fi
}

api_port_free() { ! ss -Hltn "sport = :$API_PORT" 2>/dev/null | grep -q .; }

up() {
  command -v nsenter >/dev/null || die "nsenter (util-linux) is required"
  [ "$(id -u)" = 0 ] || die "must run as root (network namespace, mounts, containerd)"
  ensure_packages
  ensure_binaries
  # one cluster per machine: the kubelet's kubepods cgroups and containerd's /run/containerd are shared
  if [ -e "$NSPATH" ] && [ ! -f "$RUN/netns-dir.saved" ]; then
    die "network namespace $NETNS exists but is not this clone's ($STATE): another local cluster runs; take it down first"
  fi
  if ! running socat && ! api_port_free; then
    die "127.0.0.1:$API_PORT is in use by another program: set LOCAL_CLUSTER_API_PORT"
  fi
  log "starting the cluster (from nothing: about 20 s; images are imported when loaded)"
  write_configs
  save_host_state
  net_up
  start socat socat "TCP-LISTEN:$API_PORT,bind=127.0.0.1,reuseaddr,fork" \
    "EXEC:nsenter --net=$NSPATH socat STDIO TCP\\:$NODEIP\\:6443"

  start registry innet "$STATE/bin/registry" -addr "$REGISTRY" -dir "$VAR/registry" -quiet \
    -cert "$PKI/registry.crt" -key "$PKI/registry.key"
  start containerd innet containerd --config "$ETC/containerd.toml"
  wait_for "containerd up" 30 ctr --address "$SOCK" version
  if ! ctr_ images ls -q 2>/dev/null | grep -qx "$PAUSE_IMAGE"; then
    if [ ! -f "$STATE/images/pause.tar" ]; then
      log "building the pause image (about 10 s)"
      (cd "$REPO" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$STATE/images/pause" ./hack/local-cluster/pause &&
        go run ./hack/mkimage binary -binary "$STATE/images/pause" -name pause -tag "$PAUSE_IMAGE" -out "$STATE/images/pause.tar" >/dev/null)
    fi
    load_images "$STATE/images/pause.tar"
  fi

  start etcd innet "$BIN/etcd" --name local --data-dir "$VAR/etcd" \
    --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
    --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
    --initial-cluster local=http://127.0.0.1:2380 --listen-metrics-urls http://127.0.0.1:2381 \
    --unsafe-no-fsync --quota-backend-bytes 2147483648
  wait_for "etcd healthy" 60 innet curl -sf http://127.0.0.1:2381/health

  start kube-apiserver innet "$BIN/kube-apiserver" --etcd-servers http://127.0.0.1:2379 \
    --bind-address "$NODEIP" --advertise-address "$NODEIP" --secure-port 6443 \
    --tls-cert-file "$PKI/apiserver.crt" --tls-private-key-file "$PKI/apiserver.key" \
    --client-ca-file "$PKI/ca.crt" \
    --kubelet-client-certificate "$PKI/apiserver-kubelet-client.crt" --kubelet-client-key "$PKI/apiserver-kubelet-client.key" \
    --kubelet-certificate-authority "$PKI/ca.crt" --kubelet-preferred-address-types InternalIP \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$PKI/sa.pub" --service-account-signing-key-file "$PKI/sa.key" \
    --service-cluster-ip-range "$SVC_CIDR" --authorization-mode Node,RBAC \
    --enable-admission-plugins NodeRestriction --allow-privileged=true --profiling=false \
    --requestheader-client-ca-file "$PKI/front-proxy-ca.crt" --requestheader-allowed-names front-proxy-client \
    --requestheader-username-headers X-Remote-User --requestheader-group-headers X-Remote-Group \
    --requestheader-extra-headers-prefix X-Remote-Extra- \
    --proxy-client-cert-file "$PKI/front-proxy-client.crt" --proxy-client-key-file "$PKI/front-proxy-client.key" \
    --enable-aggregator-routing=true \
    --audit-policy-file "$ETC/kubernetes/audit-policy.yaml" --audit-log-path "$LOGS/audit.log" \
    --audit-log-maxsize 100 --audit-log-maxbackup 1
  wait_for "kube-apiserver ready at https://127.0.0.1:$API_PORT" 180 kctl get --raw /readyz

  start kube-controller-manager innet "$BIN/kube-controller-manager" --kubeconfig "$ETC/kubernetes/controller-manager.kubeconfig" \
    --authentication-kubeconfig "$ETC/kubernetes/controller-manager.kubeconfig" \
    --authorization-kubeconfig "$ETC/kubernetes/controller-manager.kubeconfig" \
    --bind-address 127.0.0.1 --leader-elect=false --use-service-account-credentials=true \
    --service-account-private-key-file "$PKI/sa.key" --root-ca-file "$PKI/ca.crt" \
    --cluster-signing-cert-file "$PKI/ca.crt" --cluster-signing-key-file "$PKI/ca.key" \
    --service-cluster-ip-range "$SVC_CIDR" --allocate-node-cidrs=true --cluster-cidr "$POD_CIDR" \
    --node-cidr-mask-size 24
  start kube-scheduler innet "$BIN/kube-scheduler" --kubeconfig "$ETC/kubernetes/scheduler.kubeconfig" \
    --authentication-kubeconfig "$ETC/kubernetes/scheduler.kubeconfig" \
    --authorization-kubeconfig "$ETC/kubernetes/scheduler.kubeconfig" \
    --bind-address 127.0.0.1 --leader-elect=false
  start kubelet innet "$BIN/kubelet" --config "$ETC/kubernetes/kubelet-config.yaml" \
    --kubeconfig "$ETC/kubernetes/kubelet.kubeconfig" \
    --root-dir "$VAR/kubelet" --hostname-override "$NODE" --node-ip "$NODEIP" --v 1
  start kube-proxy innet "$BIN/kube-proxy" --kubeconfig "$ETC/kubernetes/kube-proxy.kubeconfig" --hostname-override "$NODE" \
    --proxy-mode iptables --cluster-cidr "$POD_CIDR" --bind-address "$NODEIP" \
    --metrics-bind-address 127.0.0.1:10249 --healthz-bind-address 127.0.0.1:10256 \
    --conntrack-max-per-core 0 --conntrack-tcp-timeout-established 0 --conntrack-tcp-timeout-close-wait 0 \
    --iptables-localhost-nodeports=false --nodeport-addresses "$NODEIP/32"
  start coredns innet "$COREDNS_BIN" -conf "$ETC/Corefile"

  wait_for "node $NODE Ready" 180 bash -c "kubectl --kubeconfig '$KUBECONFIG_HOST' get node $NODE \
    -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}' | grep -qx True"
  wait_for "default ServiceAccount created" 60 kctl -n default get serviceaccount default
  wait_for "CoreDNS ready" 60 innet curl -sf http://127.0.0.1:8181/ready
  wait_for "registry at http://$REGISTRY" 30 innet curl -sf "http://$REGISTRY/v2/"
  log "cluster up. Use it with: eval \"\$($0 env)\""
}

# load_images TARBALL...: import OCI/docker image tarballs into the node's containerd
load_images() {
  local f
  for f in "$@"; do
    [ -f "$f" ] || die "no such image tarball: $f"
    ctr_ images import --no-unpack=false "$f" >/dev/null
    log "imported $(basename "$f")"
  done
}

down() {
  # 1. let the kubelet tear pods down through CRI (CNI DEL, netns removal, unmounts). The controller
  #    manager and scheduler stop first so that nothing recreates or places the deleted pods.
  local n
  if running kubelet && running kube-apiserver && kctl get --raw /readyz >/dev/null 2>&1; then
    log "stopping the pods through the kubelet (about 5 s)"
    stop kube-controller-manager kube-scheduler
    kctl delete pod --all -A --grace-period=1 --wait=false >/dev/null 2>&1 || true
    for _ in $(seq 1 60); do
      [ "$(ctr_ tasks ls -q 2>/dev/null | wc -l)" = 0 ] && break
      sleep 0.5
    done
  fi
  stop coredns kube-controller-manager kube-scheduler kube-proxy kubelet
  stop kube-apiserver
  stop etcd socat registry
  # 2. whatever is left in OUR containerd: remember pod network namespaces, kill, remove
  local netns="" c t
  if running containerd; then
    for c in $(ctr_ containers ls -q 2>/dev/null); do
      netns="$netns $(ctr_ containers info "$c" 2>/dev/null | grep -o '"path": *"[^"]*/netns/[^"]*"' | sed 's/.*"\(\/[^"]*\)"/\1/' || true)"
      # a sandbox the kubelet had no time to tear down (a loaded machine) keeps containerd's loopback
      # result in the host path libcni hard-codes: the CNI DEL that removes it will never come
      rm -f "/var/lib/cni/results/cni-loopback-$c-lo" 2>/dev/null || true
    done
    for t in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks kill -s SIGKILL "$t" >/dev/null 2>&1 || true; done
    sleep 1
    for t in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks delete -f "$t" >/dev/null 2>&1 || true; done
    for c in $(ctr_ containers ls -q 2>/dev/null); do ctr_ containers rm "$c" >/dev/null 2>&1 || true; done
  fi
  stop containerd
  # shims of OUR containerd only: they carry our socket path on their command line
  local p
  for p in $(pgrep -f -- "containerd-shim-runc-v2 .*-address $SOCK" 2>/dev/null || true); do kill -KILL "$p" 2>/dev/null || true; done
  for n in $netns; do umount "$n" 2>/dev/null || true; rm -f "$n"; done
  # 3. unmount anything left under the state folder (kubelet's rshared root, volumes, shm, rootfs), deepest first
  awk -v r="$STATE/" 'index($2, r) == 1 {print $2}' /proc/self/mounts | sort -r | while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
  # 4. the node's network namespace: its interfaces, routes, iptables/nft rules and net.* sysctls go with it
  if [ -e "$NSPATH" ]; then ip netns delete "$NETNS" && log "network namespace $NETNS deleted"; fi
  if [ -f "$RUN/netns-dir.saved" ]; then
    local before; before=$(cat "$RUN/netns-dir.saved")
    if [ "$before" != mounted ] && [ -d /run/netns ] && [ -z "$(ls -A /run/netns)" ]; then
      while mountpoint -q /run/netns; do umount /run/netns || break; done
      [ "$before" = absent ] && rmdir /run/netns 2>/dev/null || true
    fi
    rm -f "$RUN/netns-dir.saved"
  fi
  # 5. empty cgroups left by the kubelet (kubepods) and containerd (k8s.io namespace)
  local h cg
  for h in /sys/fs/cgroup/*/ /sys/fs/cgroup/; do
    for cg in "${h}kubepods" "${h}k8s.io"; do
      if [ -d "$cg" ]; then find "$cg" -depth -type d -exec rmdir {} \; 2>/dev/null || true; fi
    done
  done
  rm -rf "$VAR/cni/networks"
  restore_sysctls
  # 6. host paths that containerd 1.6, libcni and the kubelet hard-code
  rm -f /var/lib/cni/results/webapp-lc-* 2>/dev/null || true
  find /var/log/containers -maxdepth 1 -lname "$VAR/log/pods/*" -delete 2>/dev/null || true
  rm -f /var/lib/kubelet/device-plugins/kubelet.sock 2>/dev/null || true
  rmdir /var/lib/kubelet/device-plugins /var/lib/kubelet/plugins_registry /var/lib/kubelet/plugins /var/lib/kubelet \
    /var/lib/cni/results /var/lib/cni /var/log/containers 2>/dev/null || true
  rmdir /run/containerd/s /run/containerd/fifo /run/containerd/runc/k8s.io /run/containerd/runc /run/containerd 2>/dev/null || true
  # WIPE=1: forget the cluster too (etcd data, PKI, logs); built images in images/ are kept as a cache
  if [ "${WIPE:-0}" = 1 ]; then rm -rf "$VAR" "$RUN" "$PKI" "$ETC" "$LOGS" "$KUBECONFIG_HOST"; fi
  log "down"
}

status() {
  local n rc=0
  for n in socat registry containerd etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy coredns; do
    if running "$n"; then echo "$n: running (pid $(cat "$RUN/$n.pid"))"; else echo "$n: stopped"; rc=1; fi
  done
  if [ -e "$NSPATH" ]; then echo "netns: $NETNS"; else echo "netns: absent"; fi
  [ "$rc" = 0 ] && kctl get nodes -o wide 2>/dev/null
  return $rc
}

case "${1:-}" in
  prepare) ensure_packages; ensure_binaries; log "prepared: Debian packages and binaries are in place" ;;
  up) up ;;
  down) down ;;
  status) status ;;
  env)
    echo "export KUBECONFIG=$KUBECONFIG_HOST"
    echo "export PATH=$BIN:\$PATH"
    echo "export LOCAL_CLUSTER_NETNS=$NETNS"
    echo "export LOCAL_CLUSTER_REGISTRY=$REGISTRY"
    echo "export LOCAL_CLUSTER_CA=$PKI/ca.crt"
    echo "export LOCAL_CLUSTER_NODE_KUBECONFIG=$KC_NODE"
    echo "export LOCAL_CLUSTER_AUDIT_LOG=$LOGS/audit.log"
    ;;
  load-image)
    shift
    [ $# -gt 0 ] || die "usage: $0 load-image TARBALL..."
    running containerd || die "the cluster is not up"
    load_images "$@"
    ;;
  forget-images)
    # the node forgets these image references, so that the next pod pulls them again from the registry:
    # images pushed anew under the same tag are otherwise not pulled (IfNotPresent)
    shift
    running containerd || die "the cluster is not up"
    for r in "$@"; do ctr_ images rm "$r" >/dev/null 2>&1 || true; done
    ;;
  *) echo "usage: $0 prepare|up|down|status|env|load-image TARBALL...|forget-images REF..." >&2; exit 2 ;;
esac
