#!/usr/bin/env bash
# Builds the sweep benchmark (Release) and runs it: gpukill's device-holder sweep against
# the floor (a bare /proc/*/fd readlink walk) and `fuser -v`, over 3,000 live processes
# with ~20 fds each, 64 of them holding fake NVIDIA device files.
# Arguments are passed to gpukill_sweep_bench (--rounds, --processes, --json FILE, ...).
# The results are recorded in docs/BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v fuser >/dev/null || { echo "run_sweep_bench.sh: fuser not found (apt-get install psmisc)" >&2; exit 1; }

source bench/build_release.sh
release_build gpukill gpukill_proc_fd_floor gpukill_sweep_bench

exec "$build/bin/gpukill_sweep_bench" "$@"
