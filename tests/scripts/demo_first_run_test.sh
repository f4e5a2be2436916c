#!/usr/bin/env bash
# The README's main command as a newcomer first runs it: a fresh build directory. The
# first line says how long the first build takes; then come the banner and the listing,
# with no build output above them (the compiler's lines are in the log, and none is a
# warning). Builds gpukill and gpusim once, optimised: slow on a small machine (ccache,
# when installed, makes later runs quick: the directory is the same every run, inside
# the test build, so its compile commands are too).
# Usage: demo_first_run_test.sh BUILD_DIR
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

fresh="$(cd "$1" && pwd)/demo-first-run"
rm -rf "$fresh"
mkdir -p "$fresh"
trap 'rm -rf "$fresh"' EXIT
export GPUKILL_BUILD_DIR=$fresh/build GPUKILL_DEMO_SIMULATE=1
if command -v ccache >/dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
fi

out=$("$repo/scripts/demo.sh" 2>&1)
code=$?
[[ $code -eq 0 ]] || fail "the demo exited $code: $(tail -n 20 <<<"$out")"
mapfile -t lines <<<"$out"
[[ "${lines[0]}" =~ ^demo:\ first\ build\ of\ gpukill\ and\ gpusim\ \([0-9]+\ steps\):\ about\ [0-9]+\ min\ on\ [0-9]+\ idle\ cores ]] ||
  fail "the first line does not say how long the first build takes: ${lines[0]}"
[[ "${lines[1]}" == "=================="* ]] || fail "the banner is not the second line: ${lines[1]}"
grep -q "SIMULATED HOST" <<<"$out" || fail "no banner"
grep -q "^GPU  NAME" <<<"$out" || fail "no listing"
banner_at=$(grep -n "SIMULATED HOST" <<<"$out" | head -n 1 | cut -d: -f1)
noise=$(head -n "${banner_at:-1}" <<<"$out" | grep -E 'warning:|Building C|Linking C|^\[[0-9]+/[0-9]+\]|^--' || true)
[[ -z "$noise" ]] || fail "build output above the banner: $noise"
log="$GPUKILL_BUILD_DIR/demo-build.log"
[[ -s "$log" ]] || fail "no build log at $log"
warnings=$(grep -E 'warning:' "$log" || true)
[[ -z "$warnings" ]] || fail "the build warned: $(head -n 20 <<<"$warnings")"
[[ ! -e "$GPUKILL_BUILD_DIR/tests" && ! -e "$GPUKILL_BUILD_DIR/bin/gpukill_unit_tests" ]] ||
  fail "the demo configured or built the tests"

# The demo host's health check names the orphaned workers and no miner.
"$repo/scripts/demo.sh" check --json >"$fresh/check.out" 2>/dev/null
kinds=$(sed -n '/^{/,$p' "$fresh/check.out" | jq -r '[.problems[].kind] | unique | join(",")' 2>/dev/null)
[[ "$kinds" == *orphaned_holder* ]] || fail "check on the demo host: no orphans: $(cat "$fresh/check.out")"
[[ "$kinds" != *rogue_process* ]] || fail "check on the demo host calls a workload a miner: $(cat "$fresh/check.out")"

# A second run builds nothing and says nothing about building.
again=$("$repo/scripts/demo.sh" 2>&1)
[[ "$(head -n 1 <<<"$again")" == "=================="* ]] ||
  fail "a second run does not start with the banner: $(head -n 1 <<<"$again")"

if ((failures > 0)); then echo "$failures failed"; exit 1; fi
echo "the demo's first run is quiet: 1 line, then the banner"
