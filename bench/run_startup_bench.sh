#!/usr/bin/env bash
# Builds the start-up benchmark (Release) and runs it: `gpukill list --json` and
# `gpukill --version` over an empty host against the floor program, side by side.
# Arguments are passed to gpukill_startup_bench (--rounds, --baseline GPUKILL, ...), e.g.
# against a build of the tree before a change, both in one run:
#   bench/run_startup_bench.sh --baseline /tmp/before/bin/gpukill
# The results are recorded in docs/BENCHMARKS.md ("Start-up").
set -euo pipefail
cd "$(dirname "$0")/.."

source bench/build_release.sh
release_build gpukill gpukill_proc_fd_floor gpukill_startup_bench
exec "$build/bin/gpukill_startup_bench" "$@"
