#!/usr/bin/env bash
# hack/host-snapshot.sh save FILE | check FILE
#
# Records what hack/local-cluster.sh could change on the host and, later, fails if it differs:
# sysctls, mounts, network links/addresses/routes, network namespaces, iptables (nft and legacy) and nft
# rulesets, cgroups and host paths that the kubelet, containerd and CNI hard-code, and processes that
# belong to the local cluster. Use it around `up` ... `down`:
#
#   hack/host-snapshot.sh save /tmp/before && hack/local-cluster.sh up && ... && hack/local-cluster.sh down
#   hack/host-snapshot.sh check /tmp/before      # exit 1 and a diff when the host changed
#
# Values that change by themselves (counters, entropy, time) are left out.
set -euo pipefail
LOG_PREFIX=host-snapshot
. "$(dirname "$0")/lib.sh"
STATE=${LOCAL_CLUSTER_DIR:-$REPO/.cache/local-cluster}

snapshot() {
  set +e +o pipefail   # a missing table or folder is a fact to record, not an error
  echo "## sysctl"
  # counters and per-boot randomness change on their own
  sysctl -a 2>/dev/null | grep -vE '^(fs\.(dentry-state|file-nr|inode-nr|inode-state|quota\.)|kernel\.(random\.|ns_last_pid|pty\.nr|sched_domain|perf_event_max_sample_rate|tainted|sched_rt|numa_balancing_)|net\.netfilter\.nf_conntrack_count|net\.ipv4\.tcp_fastopen_key|vm\.(stat_refresh|nr_|zone_reclaim|drop_caches))' | sort
  echo "## mounts (target fstype source propagation)"
  findmnt -rn -o TARGET,FSTYPE,SOURCE,PROPAGATION | sort
  echo "## links"
  ip -o link show | awk '{print $2, $3}' | sed 's/@[^:]*:/:/' | sort
  echo "## addresses"
  ip -o addr show | awk '{print $2, $3, $4}' | sort
  echo "## routes"
  ip route show table all | sort
  echo "## network namespaces"
  ip netns list 2>/dev/null | sort
  ls -A /run/netns 2>/dev/null | sort | sed 's/^/run-netns: /'
  echo "## iptables"
  local t
  for t in iptables-nft-save ip6tables-nft-save iptables-legacy-save ip6tables-legacy-save; do
    command -v "$t" >/dev/null || continue
    echo "# $t"
    "$t" 2>/dev/null | grep -v '^#' | sed -E 's/\[[0-9]+:[0-9]+\]/[-]/' || true
  done
  echo "## nft"
  if command -v nft >/dev/null; then nft list ruleset 2>/dev/null | sed -E 's/counter packets [0-9]+ bytes [0-9]+/counter/' || true; fi
  echo "## cgroups"
  find /sys/fs/cgroup -maxdepth 3 -type d \( -name 'kubepods*' -o -name k8s.io -o -name 'kube*' \) 2>/dev/null | sort
  echo "## host paths"
  for t in /run/containerd /run/netns /var/lib/cni /var/lib/kubelet /var/lib/containerd /var/log/containers \
    /var/log/pods /opt/containerd /opt/cni /etc/cni /etc/kubernetes /run/flannel /var/run/calico; do
    if [ -e "$t" ]; then echo "$t: $(find "$t" 2>/dev/null | sort | tr '\n' ' ')"; else echo "$t: absent"; fi
  done
  echo "## local-cluster processes"
  # anything whose command line names the cluster's state folder or network namespace
  pgrep -af -- "$STATE|/run/netns/${LOCAL_CLUSTER_NETNS:-webapp-lc}" 2>/dev/null | grep -v -e pgrep -e host-snapshot | awk '{$1=""; print}' | sort || true
}

case "${1:-}" in
  save)
    snapshot >"${2:?usage: $0 save FILE}"
    echo "host snapshot saved to $2" >&2
    ;;
  check)
    before=${2:?usage: $0 check FILE}
    if diff -u "$before" <(snapshot) >&2; then
      echo "host unchanged since $before" >&2
    else
      echo "HOST CHANGED since $before (diff above: - before, + now)" >&2
      exit 1
    fi
    ;;
  *) echo "usage: $0 save FILE | check FILE" >&2; exit 2 ;;
esac
