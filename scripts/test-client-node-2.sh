#!/usr/bin/env bash
# Runs the client-node-facing tests against @kubernetes/client-node 2.x on Node 22, without
# touching this checkout's node_modules.
#
# It copies the tracked and untracked-but-not-ignored files into a throwaway directory under
# .tmp/, installs from the lockfile there (`npm ci`), then adds @kubernetes/client-node@2 and the
# npm package `node@22` (a Node 22 binary from the npm registry; nothing else is downloaded) with
# --no-save, and runs the tests with that Node 22 binary. The test runner spawns
# process.execPath, so every test file runs on Node 22 as well.
#
# Usage: scripts/test-client-node-2.sh [test file or directory ...]
#   default targets: the client, testing and integration suites plus the informer factory and
#   lease-lock tests (everything that talks to a server through client-node types or KubeConfig),
#   the secret-redaction tests, and the chaos suite (CHAOS_RUNS schedules, default 100 here).
# Environment:
#   CLIENT_NODE_SPEC  client-node version to install (default: @kubernetes/client-node@2)
#   NODE_SPEC         Node package to install          (default: node@22)
#   KEEP_TMP=1        keep the throwaway copy (its path is printed) for debugging
# Exit status: the tests' status (non-zero on any install failure too).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

client_node_spec=${CLIENT_NODE_SPEC:-@kubernetes/client-node@2}
node_spec=${NODE_SPEC:-node@22}
if [ "$#" -gt 0 ]; then
  targets=("$@")
else
  targets=(test/client test/testing test/integration test/cache/factory.test.ts
    test/leaderelection/apiserver.test.ts test/security test/chaos)
fi

mkdir -p .tmp
work=$(mktemp -d "$repo/.tmp/client-node-2.XXXXXX")
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
echo "== npm install --no-save $client_node_spec $node_spec"
npm install --no-save --no-audit --no-fund --loglevel=error "$client_node_spec" "$node_spec"

node22="$work/node_modules/node/bin/node"
if [ ! -x "$node22" ]; then
  echo "error: no Node binary at $node22 after installing $node_spec" >&2
  exit 1
fi
node_version=$("$node22" --version)
client_node_version=$("$node22" -p "require('./node_modules/@kubernetes/client-node/package.json').version")
echo "== node $node_version ($node22)"
echo "== @kubernetes/client-node $client_node_version"
case "$client_node_version" in
  2.*) ;;
  *) echo "error: expected client-node 2.x, got $client_node_version" >&2; exit 1 ;;
esac
setup_s=$(($(date +%s) - start))

export CHAOS_RUNS=${CHAOS_RUNS:-100}
echo "== tests: ${targets[*]}"
status=0
"$node22" scripts/run-tests.mjs "${targets[@]}" || status=$?
total_s=$(($(date +%s) - start))
echo "== node $node_version, @kubernetes/client-node $client_node_version: tests exited $status" \
  "(setup ${setup_s}s, total ${total_s}s)"
exit "$status"
