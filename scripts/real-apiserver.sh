#!/usr/bin/env bash
# Obtains, builds, starts and stops a real Kubernetes API server for conformance tests:
# apiextensions-apiserver (k8s.io/apiextensions-apiserver, built from Debian sid's source
# packages in GOPATH mode, offline) on etcd (Debian's etcd-server), bound to 127.0.0.1 only.
#
# Usage: scripts/real-apiserver.sh <command> [options]
#
#   obtain            resolve golang-k8s-apiextensions-apiserver-dev's dependency closure in
#                     Debian sid through a private apt configuration (never /etc/apt, never
#                     the system's dpkg state), download it and unpack it into a private root
#   build             build the apiserver from that root (GOPATH mode, offline); cached and
#                     keyed by the package versions, so a second build is a no-op
#   start [--kubeconfig PATH]
#                     obtain and build if needed, then start etcd and the apiserver on
#                     loopback with fresh certificates; waits until
#                     /apis/apiextensions.k8s.io/v1 answers, writes an admin kubeconfig
#                     (client certificate with O=system:masters) and prints its path
#   stop              stop exactly the processes `start` recorded (by PID), remove the
#                     etcd data directory
#   compact           compact etcd to its current revision the way kube-apiserver does
#                     (compact_rev_key, then etcd compaction): older resourceVersions and
#                     continue tokens get 410 Gone; the watch cache notices within ~15 s
#   env               print shell exports for the running server (eval "$(... env)")
#   status            say whether the server is running (exit 0) or not (exit 1)
#   paths             print the cache, root, binary and run directories
#
# Environment:
#   REAL_APISERVER_CACHE    cache directory (default
#                           ${XDG_CACHE_HOME:-$HOME/.cache}/kube-controller-kit/real-apiserver)
#   REAL_APISERVER_RUN_DIR  directory for one running instance: PIDs, certificates, logs,
#                           kubeconfig, etcd data (default $REAL_APISERVER_CACHE/run);
#                           give each concurrent instance its own
#   REAL_APISERVER_MIRROR   Debian archive URL (default http://deb.debian.org/debian)
#   REAL_APISERVER_SUITE    suite (default sid)
#   REAL_APISERVER_GO       Go toolchain package version (default 1.26: golang-1.26-go)
#   REAL_APISERVER_START_TIMEOUT  seconds to wait for the apiserver (default 120)
#   REAL_APISERVER_ROOT_DISCOVERY 1 (default): build with a one-line patch that turns on the
#                           /apis discovery endpoint (apiextensions-apiserver hard-codes
#                           EnableDiscovery=false; kube-apiserver serves /apis through its
#                           aggregator), so kubectl and discovery clients work; 0: unpatched
#
# Exit codes: 0 success; 3 the server cannot be obtained (archive unreachable, a package
# missing from the suite) and nothing usable is cached, so CI may skip the leg; 1 any other
# failure; `status` exits 1 when not running.
set -euo pipefail

readonly EXIT_UNAVAILABLE=3
readonly ROOT_PACKAGE=golang-k8s-apiextensions-apiserver-dev

CACHE=${REAL_APISERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kube-controller-kit/real-apiserver}
RUN_DIR=${REAL_APISERVER_RUN_DIR:-$CACHE/run}
MIRROR=${REAL_APISERVER_MIRROR:-http://deb.debian.org/debian}
SUITE=${REAL_APISERVER_SUITE:-sid}
GO_VERSION=${REAL_APISERVER_GO:-1.26}
START_TIMEOUT=${REAL_APISERVER_START_TIMEOUT:-120}
KEYRING=${REAL_APISERVER_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
ROOT_DISCOVERY=${REAL_APISERVER_ROOT_DISCOVERY:-1}

APT_DIR=$CACHE/apt
DEB_DIR=$CACHE/debs
ROOTS_DIR=$CACHE/roots
BIN_DIRS=$CACHE/bin
GOCACHE_DIR=$CACHE/gocache
CURRENT_FILE=$CACHE/current

log() { printf '[real-apiserver] %s\n' "$*" >&2; }
die() {
  log "ERROR: $*"
  exit 1
}
unavailable() {
  {
    echo
    echo '######################################################################'
    echo '# real-apiserver: THE REAL API SERVER CANNOT BE OBTAINED'
    printf '# %s\n' "$@"
    echo '# Exiting with code 3 so that CI can skip the real-server leg.'
    echo '######################################################################'
    echo
  } >&2
  exit "$EXIT_UNAVAILABLE"
}

# ---------------------------------------------------------------------------------------
# obtain

apt_opts() {
  printf '%s\n' \
    -o "Dir::Etc=$APT_DIR/etc" \
    -o "Dir::Etc::SourceList=$APT_DIR/etc/sources.list" \
    -o "Dir::Etc::SourceParts=$APT_DIR/etc/sources.list.d" \
    -o "Dir::Etc::PreferencesParts=$APT_DIR/etc/preferences.d" \
    -o "Dir::Etc::Preferences=$APT_DIR/etc/preferences" \
    -o "Dir::State=$APT_DIR/state" \
    -o "Dir::State::Lists=$APT_DIR/lists" \
    -o "Dir::State::status=/dev/null" \
    -o "Dir::Cache=$APT_DIR/cache" \
    -o "Debug::NoLocking=1" \
    -o "Acquire::Languages=none" \
    -o "APT::Install-Recommends=false" \
    -o "APT::Install-Suggests=false"
}

# Reads the cache key of the last complete obtain (empty when none).
current_key() {
  if [[ -f $CURRENT_FILE ]]; then
    local key
    key=$(<"$CURRENT_FILE")
    if [[ -n $key && -f $ROOTS_DIR/$key/.complete ]]; then
      printf '%s' "$key"
    fi
  fi
}

# Falls back to an earlier complete obtain when the archive cannot be used now.
fallback_or_unavailable() {
  local key
  key=$(current_key)
  if [[ -n $key ]]; then
    log "WARNING: $1"
    log "WARNING: using the previously obtained packages ($key)"
    return 0
  fi
  unavailable "$@"
}

cmd_obtain() {
  command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
    unavailable 'apt-get and dpkg-deb are needed to obtain the server (Debian or Ubuntu host).'
  [[ -r $KEYRING ]] || unavailable "Debian archive keyring $KEYRING is missing (apt install debian-archive-keyring)."
  mkdir -p "$APT_DIR"/{etc/sources.list.d,etc/preferences.d,state,lists/partial,cache/archives/partial} \
    "$DEB_DIR" "$ROOTS_DIR"
  printf 'deb [signed-by=%s] %s %s main\n' "$KEYRING" "$MIRROR" "$SUITE" >"$APT_DIR/etc/sources.list"
  local -a opts
  mapfile -t opts < <(apt_opts)

  local t0=$SECONDS
  log "updating the package lists of $MIRROR $SUITE (private apt state in $APT_DIR)"
  if ! apt-get "${opts[@]}" -q update >"$APT_DIR/update.log" 2>&1 ||
    grep -qE '^(W|E): (Failed|Some index files failed|The repository .* is not signed)' "$APT_DIR/update.log"; then
    sed 's/^/  apt: /' "$APT_DIR/update.log" >&2
    fallback_or_unavailable "apt-get update of $MIRROR $SUITE failed (archive unreachable?)." \
      "See $APT_DIR/update.log."
    return 0
  fi

  # The dependency closure, as apt would install it on an empty system.
  local -a wanted=("$ROOT_PACKAGE" "golang-$GO_VERSION-go" "golang-$GO_VERSION-src" etcd-server etcd-client)
  local sim
  if ! sim=$(apt-get "${opts[@]}" -s install "${wanted[@]}" 2>&1); then
    printf '%s\n' "$sim" | sed 's/^/  apt: /' >&2
    fallback_or_unavailable "cannot resolve ${wanted[*]} in $MIRROR $SUITE (a package vanished or is uninstallable)."
    return 0
  fi
  # Keep the Go source packages (golang-*-dev), the chosen toolchain and etcd; runtime
  # libraries and other toolchains the closure drags in are not needed to build.
  local list
  list=$(printf '%s\n' "$sim" | awk '$1 == "Inst" { v = $3; gsub(/[()]/, "", v); print $2 "=" v }' |
    grep -E "^(golang-.*-dev|golang-$GO_VERSION-go|golang-$GO_VERSION-src|etcd-server|etcd-client)=" | sort)
  local p
  for p in "${wanted[@]}"; do
    if ! grep -q "^$p=" <<<"$list"; then
      fallback_or_unavailable "package $p is not in the closure resolved from $MIRROR $SUITE."
      return 0
    fi
  done
  local count key
  count=$(wc -l <<<"$list")
  key=$(printf '%s\n' "$list" | sha256sum | cut -c1-16)
  local root=$ROOTS_DIR/$key
  if [[ -f $root/.complete ]]; then
    printf '%s\n' "$key" >"$CURRENT_FILE"
    log "packages unchanged ($count packages, key $key); nothing to do"
    return 0
  fi

  log "downloading $count packages into $DEB_DIR"
  local -a todo=()
  local name ver
  while IFS='=' read -r name ver; do
    [[ -f $DEB_DIR/$(deb_file "$name" "$ver") ]] || todo+=("$name=$ver")
  done <<<"$list"
  if ((${#todo[@]} > 0)); then
    if ! (cd "$DEB_DIR" && apt-get "${opts[@]}" -q download "${todo[@]}" >"$APT_DIR/download.log" 2>&1); then
      tail -20 "$APT_DIR/download.log" | sed 's/^/  apt: /' >&2
      fallback_or_unavailable "apt-get download from $MIRROR $SUITE failed." "See $APT_DIR/download.log."
      return 0
    fi
  fi

  log "unpacking into $root"
  rm -rf "$root.tmp"
  mkdir -p "$root.tmp"
  while IFS='=' read -r name ver; do
    local f=$DEB_DIR/$(deb_file "$name" "$ver")
    [[ -f $f ]] || die "downloaded package file $f is missing"
    dpkg-deb -x "$f" "$root.tmp"
  done <<<"$list"
  printf '%s\n' "$list" >"$root.tmp/packages.txt"
  touch "$root.tmp/.complete"
  rm -rf "$root"
  mv "$root.tmp" "$root"
  printf '%s\n' "$key" >"$CURRENT_FILE"
  prune_except "$key" "$list"
  log "obtained $count packages in $((SECONDS - t0))s (key $key)"
}

# Removes package roots, binaries and .deb files that belong to no longer current keys
# (the cache would otherwise grow by ~2.5 GiB each time sid moves).
prune_except() {
  local key=$1 list=$2 d f keep name ver
  for d in "$ROOTS_DIR"/* "$BIN_DIRS"/* "$CACHE"/overlay/*; do
    [[ -e $d && $(basename "$d") != "$key" && $(basename "$d") != "$key-discovery" ]] && rm -rf "$d"
  done
  keep=$(while IFS='=' read -r name ver; do deb_file "$name" "$ver"; echo; done <<<"$list")
  for f in "$DEB_DIR"/*.deb; do
    [[ -e $f ]] || continue
    grep -qxF "$(basename "$f")" <<<"$keep" || rm -f "$f"
  done
}

# apt-get download names files <name>_<version with ':' as %3a>_<arch>.deb.
deb_file() {
  local name=$1 ver=${2//:/%3a}
  local f
  for f in "$DEB_DIR/${name}_${ver}_"*.deb; do
    [[ -f $f ]] && {
      basename "$f"
      return
    }
  done
  printf '%s_%s_missing.deb' "$name" "$ver"
}

# The binary directory for a package key and the discovery variant.
bin_dir() {
  if [[ $ROOT_DISCOVERY == 1 ]]; then
    printf '%s' "$BIN_DIRS/$1-discovery"
  else
    printf '%s' "$BIN_DIRS/$1"
  fi
}

require_obtained() {
  local key
  key=$(current_key)
  if [[ -z $key ]]; then
    cmd_obtain
    key=$(current_key)
    [[ -n $key ]] || die 'obtain did not produce a package root'
  fi
  printf '%s' "$key"
}

# ---------------------------------------------------------------------------------------
# build

cmd_build() {
  local key
  key=$(require_obtained)
  local root=$ROOTS_DIR/$key bin
  bin=$(bin_dir "$key")
  if [[ -x $bin/apiextensions-apiserver && -x $bin/etcd && -x $bin/etcdctl ]]; then
    log "already built: $bin/apiextensions-apiserver"
    return 0
  fi
  local goroot=$root/usr/lib/go-$GO_VERSION
  [[ -x $goroot/bin/go ]] || die "no Go toolchain at $goroot (obtain incomplete?)"
  local etcd etcdctl
  etcd=$(find_binary "$root" etcd)
  etcdctl=$(find_binary "$root" etcdctl)
  mkdir -p "$bin.tmp" "$GOCACHE_DIR"
  local src=$root/usr/share/gocode/src/k8s.io/apiextensions-apiserver
  local -a overlay=()
  if [[ $ROOT_DISCOVERY == 1 ]]; then
    # go build -overlay replaces one file without touching the unpacked packages.
    local orig=$src/pkg/apiserver/apiserver.go patched=$CACHE/overlay/$key/apiserver.go
    mkdir -p "$(dirname "$patched")"
    sed 's/c\.GenericConfig\.EnableDiscovery = false/c.GenericConfig.EnableDiscovery = true/' "$orig" >"$patched"
    grep -q 'c.GenericConfig.EnableDiscovery = true' "$patched" ||
      die "the root-discovery patch no longer applies to $orig; build with REAL_APISERVER_ROOT_DISCOVERY=0"
    printf '{"Replace":{"%s":"%s"}}\n' "$orig" "$patched" >"$CACHE/overlay/$key/overlay.json"
    overlay=(-overlay "$CACHE/overlay/$key/overlay.json")
    log "patch: EnableDiscovery=true (serves /apis; REAL_APISERVER_ROOT_DISCOVERY=0 to build unpatched)"
  fi
  log "building k8s.io/apiextensions-apiserver with Go $GO_VERSION (GOPATH mode, offline; ~9 min on 2 cores when the Go cache is cold)"
  local t0=$SECONDS
  (
    cd "$src"
    env -i PATH="$goroot/bin:/usr/bin:/bin" HOME="$CACHE" \
      GOROOT="$goroot" GOPATH="$root/usr/share/gocode" GO111MODULE=off GOTOOLCHAIN=local \
      GOPROXY=off GOFLAGS= CGO_ENABLED=0 GOCACHE="$GOCACHE_DIR" GOTELEMETRY=off \
      "$goroot/bin/go" build -trimpath "${overlay[@]}" -o "$bin.tmp/apiextensions-apiserver" \
      k8s.io/apiextensions-apiserver >&2
  ) || die "go build of k8s.io/apiextensions-apiserver failed (see the output above)"
  cp "$etcd" "$bin.tmp/etcd"
  cp "$etcdctl" "$bin.tmp/etcdctl"
  rm -rf "$bin"
  mv "$bin.tmp" "$bin"
  log "built in $((SECONDS - t0))s: $bin/apiextensions-apiserver"
}

find_binary() {
  local root=$1 name=$2 p
  for p in "$root/usr/bin/$name" "$root/usr/sbin/$name"; do
    [[ -x $p ]] && {
      printf '%s' "$p"
      return
    }
  done
  die "$name not found in $root (is etcd-server/etcd-client unpacked?)"
}

require_built() {
  local key
  key=$(require_obtained)
  [[ -x $(bin_dir "$key")/apiextensions-apiserver ]] || cmd_build
  bin_dir "$key"
}

# ---------------------------------------------------------------------------------------
# start / stop

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();});'
}

# Whether PID is alive and runs the binary named NAME (guards against PID reuse).
pid_runs() {
  local pid=$1 name=$2
  [[ -n $pid && -d /proc/$pid ]] || return 1
  local exe
  exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
  [[ $(basename "${exe% (deleted)}") == "$name" ]]
}

read_pid() { [[ -f $RUN_DIR/$1.pid ]] && cat "$RUN_DIR/$1.pid" || true; }

is_running() {
  pid_runs "$(read_pid apiserver)" apiextensions-apiserver && pid_runs "$(read_pid etcd)" etcd
}

mint_certs() {
  local d=$1
  mkdir -p "$d"
  openssl req -x509 -newkey rsa:2048 -nodes -days 7 -subj '/CN=real-apiserver-ca' \
    -keyout "$d/ca.key" -out "$d/ca.crt" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj '/CN=127.0.0.1' \
    -keyout "$d/server.key" -out "$d/server.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >"$d/server.ext"
  openssl x509 -req -in "$d/server.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial \
    -days 7 -extfile "$d/server.ext" -out "$d/server.crt" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj '/O=system:masters/CN=kube-controller-kit-admin' \
    -keyout "$d/admin.key" -out "$d/admin.csr" 2>/dev/null
  printf 'extendedKeyUsage=clientAuth\n' >"$d/admin.ext"
  openssl x509 -req -in "$d/admin.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial \
    -days 7 -extfile "$d/admin.ext" -out "$d/admin.crt" 2>/dev/null
  chmod 600 "$d"/*.key
}

write_kubeconfig() {
  local path=$1 url=$2 d=$3
  umask 077
  cat >"$path" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: real-apiserver
  cluster:
    server: $url
    certificate-authority-data: $(base64 -w0 <"$d/ca.crt")
users:
- name: admin
  user:
    client-certificate-data: $(base64 -w0 <"$d/admin.crt")
    client-key-data: $(base64 -w0 <"$d/admin.key")
contexts:
- name: real-apiserver
  context:
    cluster: real-apiserver
    user: admin
current-context: real-apiserver
EOF
}

cmd_start() {
  local kubeconfig=""
  local tool
  for tool in openssl curl setsid; do
    command -v "$tool" >/dev/null || die "$tool is needed to start the server (apt-get install $tool)"
  done
  while (($# > 0)); do
    case $1 in
    --kubeconfig) kubeconfig=${2:?--kubeconfig needs a path} && shift 2 ;;
    --kubeconfig=*) kubeconfig=${1#*=} && shift ;;
    *) die "start: unknown option $1" ;;
    esac
  done
  if is_running; then
    die "already running in $RUN_DIR (kubeconfig $(cat "$RUN_DIR/kubeconfig.path")); run stop first"
  fi
  local bin
  bin=$(require_built)
  # Leftovers of a crashed run: stop what is still ours, then start clean.
  stop_recorded
  local t0=$SECONDS
  mkdir -p "$RUN_DIR"
  rm -rf "$RUN_DIR/certs" "$RUN_DIR/apiserver-certs"
  local data
  data=$(mktemp -d "${TMPDIR:-/tmp}/real-apiserver-etcd.XXXXXX")
  printf '%s\n' "$data" >"$RUN_DIR/etcd-data.path"
  [[ -n $kubeconfig ]] || kubeconfig=$RUN_DIR/kubeconfig
  kubeconfig=$(realpath -m "$kubeconfig")
  # Fail before starting anything if the kubeconfig cannot be written.
  mkdir -p "$(dirname "$kubeconfig")" && : >"$kubeconfig" || die "cannot write the kubeconfig $kubeconfig"
  mint_certs "$RUN_DIR/certs"

  local etcd_port peer_port api_port
  etcd_port=$(free_port)
  peer_port=$(free_port)
  api_port=$(free_port)
  while [[ $peer_port == "$etcd_port" ]]; do peer_port=$(free_port); done
  while [[ $api_port == "$etcd_port" || $api_port == "$peer_port" ]]; do api_port=$(free_port); done
  local etcd_url=http://127.0.0.1:$etcd_port url=https://127.0.0.1:$api_port

  log "starting etcd on $etcd_url (data in $data)"
  setsid "$bin/etcd" --name real-apiserver --data-dir "$data" \
    --listen-client-urls "$etcd_url" --advertise-client-urls "$etcd_url" \
    --listen-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "real-apiserver=http://127.0.0.1:$peer_port" \
    --listen-metrics-urls '' --log-level warn \
    </dev/null >"$RUN_DIR/etcd.log" 2>&1 &
  printf '%s\n' "$!" >"$RUN_DIR/etcd.pid"
  printf '%s\n' "$etcd_url" >"$RUN_DIR/etcd.url"

  local deadline=$((SECONDS + START_TIMEOUT))
  until "$bin/etcdctl" --endpoints "$etcd_url" --command-timeout=2s endpoint health >/dev/null 2>&1; do
    pid_runs "$(read_pid etcd)" etcd || fail_start "etcd exited" etcd
    ((SECONDS < deadline)) || fail_start "etcd not healthy after ${START_TIMEOUT}s" etcd
    sleep 0.2
  done

  # The apiserver talks to itself (delegated authn/authz) through an admin kubeconfig.
  write_kubeconfig "$RUN_DIR/self.kubeconfig" "$url" "$RUN_DIR/certs"
  log "starting apiextensions-apiserver on $url"
  setsid "$bin/apiextensions-apiserver" \
    --etcd-servers "$etcd_url" \
    --bind-address 127.0.0.1 --secure-port "$api_port" \
    --cert-dir "$RUN_DIR/apiserver-certs" \
    --tls-cert-file "$RUN_DIR/certs/server.crt" --tls-private-key-file "$RUN_DIR/certs/server.key" \
    --client-ca-file "$RUN_DIR/certs/ca.crt" \
    --kubeconfig "$RUN_DIR/self.kubeconfig" \
    --authentication-kubeconfig "$RUN_DIR/self.kubeconfig" \
    --authorization-kubeconfig "$RUN_DIR/self.kubeconfig" \
    --authentication-skip-lookup \
    --enable-priority-and-fairness=false \
    --etcd-compaction-interval=24h \
    --disable-admission-plugins NamespaceLifecycle,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy,MutatingAdmissionPolicy \
    </dev/null >"$RUN_DIR/apiserver.log" 2>&1 &
  printf '%s\n' "$!" >"$RUN_DIR/apiserver.pid"
  printf '%s\n' "$url" >"$RUN_DIR/apiserver.url"

  # /readyz never turns ready in this standalone form; the API group answering is the signal.
  until curl -sf --max-time 2 --cacert "$RUN_DIR/certs/ca.crt" \
    --cert "$RUN_DIR/certs/admin.crt" --key "$RUN_DIR/certs/admin.key" \
    "$url/apis/apiextensions.k8s.io/v1" >/dev/null 2>&1; do
    pid_runs "$(read_pid apiserver)" apiextensions-apiserver || fail_start "apiextensions-apiserver exited" apiserver
    ((SECONDS < deadline)) || fail_start "apiserver not answering after ${START_TIMEOUT}s" apiserver
    sleep 0.2
  done

  write_kubeconfig "$kubeconfig" "$url" "$RUN_DIR/certs"
  printf '%s\n' "$kubeconfig" >"$RUN_DIR/kubeconfig.path"
  log "ready in $((SECONDS - t0))s: $url (etcd $etcd_url, PIDs apiserver $(read_pid apiserver) etcd $(read_pid etcd))"
  printf '%s\n' "$kubeconfig"
}

fail_start() {
  log "ERROR: $1; last lines of $RUN_DIR/$2.log:"
  tail -30 "$RUN_DIR/$2.log" 2>/dev/null | sed 's/^/  | /' >&2 || true
  stop_recorded
  exit 1
}

# Stops the process recorded in NAME.pid if it still runs BINARY.
stop_one() {
  local name=$1 binary=$2 pid
  pid=$(read_pid "$name")
  if pid_runs "$pid" "$binary"; then
    kill -TERM "$pid" 2>/dev/null || true
    local i
    for ((i = 0; i < 100; i++)); do
      pid_runs "$pid" "$binary" || break
      sleep 0.1
    done
    if pid_runs "$pid" "$binary"; then
      log "$name ($pid) ignored SIGTERM for 10s; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      for ((i = 0; i < 50; i++)); do
        pid_runs "$pid" "$binary" || break
        sleep 0.1
      done
    fi
    log "stopped $name ($pid)"
  fi
  rm -f "$RUN_DIR/$name.pid"
}

stop_recorded() {
  [[ -d $RUN_DIR ]] || return 0
  stop_one apiserver apiextensions-apiserver
  stop_one etcd etcd
  if [[ -f $RUN_DIR/etcd-data.path ]]; then
    local data
    data=$(<"$RUN_DIR/etcd-data.path")
    [[ $data == */real-apiserver-etcd.* ]] && rm -rf "$data"
    rm -f "$RUN_DIR/etcd-data.path"
  fi
  rm -f "$RUN_DIR"/{apiserver,etcd}.url "$RUN_DIR/kubeconfig.path"
}

cmd_stop() {
  stop_recorded
  log "stopped (run dir $RUN_DIR)"
}

# ---------------------------------------------------------------------------------------
# compact / env / status / paths

etcdctl_bin() {
  local key
  key=$(current_key)
  [[ -n $key && -x $(bin_dir "$key")/etcdctl ]] || die 'etcdctl not built; run build first'
  printf '%s' "$(bin_dir "$key")/etcdctl"
}

# Compacts the way kube-apiserver's own compactor does: record the revision under
# compact_rev_key (the apiserver watches that key and passes it on to its watch cache, whose
# snapshots are pruned on the cacher's next poll, within about 15 s), then compact etcd.
cmd_compact() {
  is_running || die "not running (run dir $RUN_DIR); run start first"
  local etcdctl url rev
  etcdctl=$(etcdctl_bin)
  url=$(<"$RUN_DIR/etcd.url")
  rev=$("$etcdctl" --endpoints "$url" endpoint status -w json |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[0].Status.header.revision))')
  [[ $rev =~ ^[0-9]+$ ]] || die "cannot read etcd's current revision from $url"
  "$etcdctl" --endpoints "$url" put compact_rev_key "$rev" >/dev/null
  "$etcdctl" --endpoints "$url" compact "$rev" --physical >/dev/null
  log "compacted etcd to revision $rev"
  printf '%s\n' "$rev"
}

cmd_env() {
  is_running || die "not running (run dir $RUN_DIR); run start first"
  printf 'export KUBECONFIG=%q\n' "$(<"$RUN_DIR/kubeconfig.path")"
  printf 'export REAL_APISERVER_KUBECONFIG=%q\n' "$(<"$RUN_DIR/kubeconfig.path")"
  printf 'export REAL_APISERVER_URL=%q\n' "$(<"$RUN_DIR/apiserver.url")"
  printf 'export REAL_APISERVER_ETCD_URL=%q\n' "$(<"$RUN_DIR/etcd.url")"
  printf 'export REAL_APISERVER_ETCDCTL=%q\n' "$(etcdctl_bin)"
  printf 'export REAL_APISERVER_RUN_DIR=%q\n' "$RUN_DIR"
}

cmd_status() {
  if is_running; then
    echo "running: apiserver $(<"$RUN_DIR/apiserver.url") (PID $(read_pid apiserver)), etcd $(<"$RUN_DIR/etcd.url") (PID $(read_pid etcd)), kubeconfig $(<"$RUN_DIR/kubeconfig.path")"
    return 0
  fi
  local key
  key=$(current_key)
  if [[ -n $key && -x $(bin_dir "$key")/apiextensions-apiserver ]]; then
    echo "not running (built: $(bin_dir "$key"))"
  elif [[ -n $key ]]; then
    echo "not running (obtained $key, not built)"
  else
    echo "not running (not obtained)"
  fi
  return 1
}

cmd_paths() {
  local key
  key=$(current_key)
  echo "cache:  $CACHE"
  echo "run:    $RUN_DIR"
  echo "root:   ${key:+$ROOTS_DIR/$key}"
  echo "bin:    ${key:+$(bin_dir "$key")}"
}

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; }

main() {
  local cmd=${1:-}
  (($# > 0)) && shift
  case $cmd in
  obtain) cmd_obtain "$@" ;;
  build) cmd_build "$@" ;;
  start) cmd_start "$@" ;;
  stop) cmd_stop "$@" ;;
  compact) cmd_compact "$@" ;;
  env) cmd_env "$@" ;;
  status) cmd_status "$@" ;;
  paths) cmd_paths "$@" ;;
  -h | --help | help) usage ;;
  *)
    usage
    exit 1
    ;;
  esac
}

main "$@"
