#!/usr/bin/env bash
# hack/ci-e2e.sh: what CI runs for the end-to-end tests on a real node.
#   0. install packages and build binaries (cached), 1. snapshot the host, 2. bring the local cluster up,
#   3. make demo (the quickstart), 4. make test-olm (the gateway and OLM installed from source, run bundle,
#   Subscription, upgrades, install modes, scorecard: test/olm), 5. make test-e2e (builds and loads the images, deploys the operator,
#   runs test/e2e), 6. the quickstart again, on the operator as test-e2e left it: the cluster must survive
#   its own suites in any order (once, the OLM suite's image pulls left the demo in ImagePullBackOff),
#   7. always take the cluster down and check that the host is exactly as before (hack/host-snapshot.sh).
#   Exit status: non-zero if any step failed.
# Needs root, Go, Debian apt (first run) and the Go module proxy (first run only: the builds are cached
# in ~/.cache/webapp-operator and the Go build cache afterwards).
set -euo pipefail
LOG_PREFIX=ci-e2e
. "$(dirname "$0")/lib.sh"
cd "$REPO"
start=$(date +%s)
snapshot=$(mktemp /tmp/ci-e2e-host.XXXXXX)

finish() {
  local rc=$?
  # ignored, not reset: .ci/run stops this step by signalling its whole process group, which
  # includes the teardown (its children inherit the ignored signals); killed halfway, it once
  # left the cluster running after a failed job
  trap - EXIT
  trap '' INT TERM
  log "taking the cluster down"
  hack/local-cluster.sh down || rc=1
  if hack/host-snapshot.sh check "$snapshot"; then rm -f "$snapshot"; else rc=1; fi
  log "done in $(($(date +%s) - start)) s: $([ "$rc" = 0 ] && echo PASS || echo "FAIL ($rc)")"
  exit "$rc"
}

# packages and binaries first: installing packages changes the host on purpose (and, on a fresh
# machine, what the snapshot can read, e.g. iptables-save)
log "prepare: Debian packages and the cluster's binaries (built once, then cached)"
hack/local-cluster.sh prepare
log "OLM binaries and busybox (built once, then cached)"
hack/olm.sh build
# OLM v1 (make test-olmv1) is not run here: operator-controller requires a module the Go module proxy
# refuses (boxcutter), so CI cannot build it from what it may download (docs/olm.md).
# the host as it is before anything of ours runs (a leftover cluster from an earlier job is taken
# down first, so that the comparison is against a clean host)
hack/local-cluster.sh down >/dev/null 2>&1 || true
hack/host-snapshot.sh save "$snapshot"
trap finish EXIT
trap 'exit 130' INT TERM
log "cluster up"
hack/local-cluster.sh up
log "the quickstart"
make demo
log "OLM: install from source, run bundle, Subscription, upgrades, scorecard in the cluster"
make test-olm
log "end-to-end tests"
make test-e2e
# What the suites could break is the cluster (its images, Services, DNS), not the deploy that step 3
# proved: so this is make demo without its deploy-local. make cluster-up checks every component and
# CoreDNS; demo.sh creates the quickstart's WebApp on the operator test-e2e deployed, waits for Ready
# and calls it by ClusterIP and by DNS name. The full make demo would rebuild the images and deploy
# config/default over test-e2e's overlay: the operator restarts and the demo waits out its leader
# election (docs/development.md, "CI", gives both times).
log "the quickstart again, after both suites (the cluster, then the demo WebApp)"
make cluster-up
hack/local-cluster/demo.sh
