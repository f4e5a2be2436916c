#!/usr/bin/env bash
# Builds the kill benchmark (Release) and runs it: `gpukill kill --pid P` against the
# shell idiom `kill P; while kill -0 P; do sleep 0.1; done`, on a plain process and on a
# gpusim workload, then 200 targets (50 ignoring SIGTERM) with --timeout-secs 1 --force.
# Arguments are passed to gpukill_kill_bench (--rounds, --batch-runs, --json FILE, ...).
# The results are recorded in docs/BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."

source bench/build_release.sh
release_build gpukill gpusim nvidia_ml_sim gpukill_kill_bench

exec "$build/bin/gpukill_kill_bench" "$@"
