# hack/lib.sh: what every script under hack/ shares. Source it; it sets:
#   REPO       the repository root
#   CACHE_DIR  built binaries shared by every clone of this machine (~/.cache/webapp-operator)
#   the pinned versions of hack/versions.env (K8S_VERSION, OLM_VERSION, ...), exported
# and defines log, die, wait_for, alive, innet and render. A script sets LOG_PREFIX before it logs.
# shellcheck shell=bash

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE_DIR=${CACHE_DIR:-$HOME/.cache/webapp-operator}
set -a
# shellcheck source=versions.env
. "$REPO/hack/versions.env"
set +a
# The control plane binaries, in setup-envtest's store layout (hack/install-envtest-bins.sh).
K8S_BIN=$CACHE_DIR/envtest/k8s/${K8S_VERSION#v}-$(go env GOOS)-$(go env GOARCH)
# The local cluster's network namespace (hack/local-cluster.sh); every address it uses lives there.
LOCAL_CLUSTER_NETNS=${LOCAL_CLUSTER_NETNS:-webapp-lc}

_LIB_T0=$(date +%s)
# log MESSAGE...: one line on stderr with the script's prefix, the time and the seconds since it started
log() { echo "[${LOG_PREFIX:-hack} $(date +%T) +$(($(date +%s) - _LIB_T0))s] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# wait_for DESCRIPTION TIMEOUT_S CMD...: run CMD every half second until it succeeds
wait_for() {
  local d=$1 to=$2 i; shift 2
  for ((i = 0; i < to * 2; i++)); do
    if "$@" >/dev/null 2>&1; then log "$d"; return 0; fi
    sleep 0.5
  done
  die "timed out after ${to}s waiting for $d${WAIT_FOR_HINT:+ ($WAIT_FOR_HINT)}"
}

# alive PID: the process exists and is not a zombie. Daemons outlive the shell that started them, so
# their parent is PID 1, which may take seconds to reap them; kill -0 succeeds on a zombie.
alive() { [ -r "/proc/$1/stat" ] && ! awk '{exit ($3 == "Z") ? 0 : 1}' "/proc/$1/stat" 2>/dev/null; }

# innet CMD...: CMD inside the local cluster's network namespace
innet() { nsenter --net="/run/netns/$LOCAL_CLUSTER_NETNS" "$@"; }

# module_dir MODULE@VERSION: prints the module's folder in the Go module cache, downloading it from
# the Go module proxy through a throwaway module (go mod download needs one), so that no go.mod of
# the project learns of it; its go.sum line is checked against the checksum database as usual.
module_dir() {
  local w
  w=$(mktemp -d)
  printf 'module fetch\n\ngo 1.26\n' >"$w/go.mod"
  (cd "$w" && GOWORK=off go mod download -json "$1" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  rm -rf "$w"
}

# render TEMPLATE: the template with every ${NAME} replaced by the value of that shell variable. An
# unset name is an error: a typo must not turn into an empty path in a configuration file.
render() {
  local line out name
  while IFS= read -r line || [ -n "$line" ]; do
    out=""
    while [[ $line =~ ^([^$]*)\$\{([A-Za-z_][A-Za-z0-9_]*)\}(.*)$ ]]; do
      name=${BASH_REMATCH[2]}
      [ -n "${!name+x}" ] || die "template $1: \${$name} is not set"
      out+=${BASH_REMATCH[1]}${!name}
      line=${BASH_REMATCH[3]}
    done
    printf '%s\n' "$out$line"
  done <"$1"
}
