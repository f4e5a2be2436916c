#!/usr/bin/env bash
# What recording the usage history costs `gpukill list`: on a simulated host with
# GPU workloads, times `gpukill list --json` with the history recorded on every run
# (GPUKILL_HISTORY_MIN_INTERVAL_SECONDS=0, the worst case: the default records at most
# once per 10 s) against the same command with GPUKILL_NO_HISTORY=1, interleaved in one
# run, and prints the medians and their ratio. Usage: bench/run_history_bench.sh [ROUNDS]
# (default 40). GPUKILL_BENCH_PREBUILT=DIR uses DIR/bin's binaries instead of building
# (a ratio of two runs of the same binary holds for any build type).
# The result is recorded in docs/BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-40}

source bench/build_release.sh
prebuilt_or_release_build gpukill gpusim nvidia_ml_sim
gpukill=$PWD/$build/bin/gpukill
gpusim=$PWD/$build/bin/gpusim

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

"$gpusim" init --root "$work/host" >/dev/null
eval "$("$gpusim" env --root "$work/host")"
export GPUKILL_STATE_DIR=$work/state GPUKILL_CONFIG_DIR=$work/config
# 8 workloads with 2 workers each: 24 GPU processes over the 2 default GPUs.
for i in 0 1 2 3 4 5 6 7; do
    line=$("$gpusim" run --root "$work/host" --gpu $((i % 2)) --mem 1G --util 50 --workers 2 \
        --background)
    # The workload and its workers: killing the parent alone would leave them holding the GPU.
    pids+=($(jq -r '.pid, .workers[]' <<<"$line"))
done

time_ns() {  # runs the command once, prints its wall time in ns
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null
    end=$(date +%s%N)
    echo $((end - start))
}

with=() without=() default=()
for ((r = 0; r < rounds + 3; r++)); do
    a=$(GPUKILL_HISTORY_MIN_INTERVAL_SECONDS=0 time_ns "$gpukill" list --json)
    b=$(GPUKILL_NO_HISTORY=1 time_ns "$gpukill" list --json)
    c=$(time_ns "$gpukill" list --json)  # the default: a sample at most every 10 s
    ((r < 3)) && continue  # warm-up: page cache, first schema creation
    with+=("$a") without+=("$b") default+=("$c")
done

median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
m_with=$(median "${with[@]}")
m_without=$(median "${without[@]}")
m_default=$(median "${default[@]}")
samples=$(GPUKILL_NO_HISTORY=1 "$gpukill" audit --json --audit-summary | sed -nE 's/^  "samples": ([0-9]+).*/\1/p')
awk -v a="$m_with" -v b="$m_without" -v c="$m_default" -v n="$rounds" -v s="${samples:-?}" 'BEGIN {
    printf "gpukill list --json, %d interleaved rounds, 24 GPU processes on 2 simulated GPUs\n", n
    printf "  with history recorded every run : median %.1f ms\n", a / 1e6
    printf "  default (a sample per 10 s)     : median %.1f ms\n", c / 1e6
    printf "  with GPUKILL_NO_HISTORY=1       : median %.1f ms\n", b / 1e6
    printf "  ratio every-run / none          : %.2fx (%s samples recorded)\n", a / b, s
    printf "  ratio default / none            : %.2fx\n", c / b
}'
