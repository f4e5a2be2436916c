#!/bin/bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
# tests/mcp/package.json) against `gpukill mcp --http` on a free loopback port, with
# the scenarios that need the suite's own reference tools, prompts or features gpukill
# does not offer listed, each with its reason, in expected-failures.yaml.
#   conformance_test.sh GPUKILL_BIN
# Exit 0: every scenario passed or failed as expected; 77: skipped (no Node modules).
set -euo pipefail
gpukill=$1
here=$(cd "$(dirname "$0")" && pwd)
suite="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if ! command -v node >/dev/null || [ ! -f "$suite" ]; then
    echo "SKIP: Node or the conformance suite is missing: run scripts/setup.sh" >&2
    exit 77
fi
work=$(mktemp -d)
server=""
cleanup() {
    if [ -n "$server" ]; then kill -TERM "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
# A host with no GPU backend: the protocol is what is tested here.
GPUKILL_STATE_DIR="$work/state" GPUKILL_CONFIG_DIR="$work/config" GPUKILL_CONTAINER_SOCKETS="" \
    "$gpukill" mcp --http --listen 127.0.0.1:0 2>"$work/stderr" &
server=$!
url=""
for _ in $(seq 1 300); do
    url=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$work/stderr")
    [ -n "$url" ] && break
    if ! kill -0 "$server" 2>/dev/null; then cat "$work/stderr" >&2; exit 1; fi
    sleep 0.1
done
[ -n "$url" ] || { echo "no ready line from gpukill mcp" >&2; cat "$work/stderr" >&2; exit 1; }
cd "$work"
node "$suite" server --url "$url" --expected-failures "$here/expected-failures.yaml" \
    -o "$work/results" 2>&1 | tail -n 60
