#!/usr/bin/env bash
# The README's main command on the simulated path: it ends every process it started
# (the orphaned workers too) and removes its root on a normal end, on an error and on
# Ctrl-C; the demo host is clean for rogue detection, and its health check names only its
# real problems.
# Usage: demo_test.sh BUILD_DIR
set -uo pipefail
build=$(cd "$1" && pwd)
repo=$(cd "$(dirname "$0")/../.." && pwd)
export GPUKILL_BUILD_DIR=$build GPUKILL_DEMO_SIMULATE=1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

root_of() { sed -nE 's/^ Simulated root: (\/tmp\/gpukill-demo-[A-Za-z0-9]+) .*/\1/p' "$1" | head -n 1; }

# Nothing left: the root is gone and no process names it in its command line.
check_clean() {
  local what=$1 root=$2 holders
  [[ -n "$root" ]] || { fail "$what: the demo printed no root"; return; }
  [[ ! -e "$root" ]] || fail "$what: $root is still there"
  holders=$(pgrep -a -f -- "$root" || true)  # pgrep never lists itself
  [[ -z "$holders" ]] || fail "$what: processes still name $root: $holders"
}

out=$(mktemp); trap 'rm -f "$out"' EXIT

# 1. Normal end.
"$repo/scripts/demo.sh" >"$out" 2>&1 || fail "plain demo exited $?: $(tail -n 5 "$out")"
grep -q "file only \*" "$out" || fail "plain demo: the orphaned workers are not listed"
check_clean "plain demo" "$(root_of "$out")"

# 2. A command that fails (exit 3: unknown GPU) still cleans up.
"$repo/scripts/demo.sh" list --gpu 99 >"$out" 2>&1
code=$?
[[ $code -eq 3 ]] || fail "failing demo exited $code, not 3"
check_clean "failing demo" "$(root_of "$out")"

# 3. Ctrl-C while a watch runs: SIGINT to the demo's whole process group, as a terminal
# sends it, once the first frame is on screen.
setsid "$repo/scripts/demo.sh" list --watch --interval 1 >"$out" 2>&1 &
demo=$!
for _ in $(seq 600); do grep -q "^GPU " "$out" && break; sleep 0.05; done
grep -q "^GPU " "$out" || fail "watch demo never drew a frame"
root=$(root_of "$out")
kill -INT -- "-$demo"
wait "$demo"
check_clean "interrupted demo" "$root"

# 4. The demo host's workloads are what they claim: no rogue finding.
"$repo/scripts/demo.sh" audit --rogue --json >"$out" 2>/dev/null
code=$?
[[ $code -eq 0 ]] || fail "rogue scan of the demo host exited $code: $(tail -c 600 "$out")"
json=$(sed -n '/^{/,$p' "$out")
findings=$(jq '.findings | length' <<<"$json" 2>/dev/null)
[[ "$findings" == 0 ]] || fail "rogue scan of the demo host: findings=$findings: $json"
check_clean "rogue demo" "$(root_of "$out")"

# 5. The demo host's health check names its real problems (the orphaned workers, the
# leaked memory) and never calls one of its workloads a miner.
"$repo/scripts/demo.sh" check --json >"$out" 2>/dev/null
code=$?
[[ $code -eq 1 ]] || fail "check on the demo host exited $code, not 1: $(tail -c 600 "$out")"
json=$(sed -n '/^{/,$p' "$out")
kinds=$(jq -r '[.problems[].kind] | unique | join(",")' <<<"$json" 2>/dev/null)
[[ "$kinds" == *orphaned_holder* ]] || fail "check on the demo host: no orphaned workers: $json"
[[ "$kinds" != *rogue_process* ]] || fail "check on the demo host calls a workload a miner: $json"
check_clean "check demo" "$(root_of "$out")"

if ((failures > 0)); then echo "$failures failed"; exit 1; fi
echo "demo leaves nothing behind: 5 passed"
