#!/usr/bin/env bash
# Builds the sweep benchmark (Release) and runs it: gpukill's device-holder sweep against
# the floor (a bare /proc/*/fd readlink walk) and `fuser -v`, over 3,000 live processes
# with ~20 fds each, 64 of them holding fake NVIDIA device files.
# Arguments are passed to gpukill_sweep_bench (--rounds, --processes, --json FILE, ...).
# The results are recorded in docs/BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v fuser >/dev/null || { echo "run_sweep_bench.sh: fuser not found (apt-get install psmisc)" >&2; exit 1; }

build=${GPUKILL_BENCH_BUILD_DIR:-build-bench}
generator=()
# A generator can only be chosen when the build directory is first configured.
if [[ ! -f "$build/CMakeCache.txt" ]] && command -v ninja >/dev/null; then generator=(-G Ninja); fi
# Tests are not needed here; skipping them keeps the build short on a small machine.
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DGPUKILL_BUILD_TESTS=OFF >&2
# Build output goes to stderr: stdout is the report alone, ready to paste or redirect.
cmake --build "$build" -j "$(nproc)" --target gpukill gpukill_proc_fd_floor gpukill_sweep_bench >&2

exec "$build/bin/gpukill_sweep_bench" "$@"
