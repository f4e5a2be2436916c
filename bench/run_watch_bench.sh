#!/usr/bin/env bash
# What watching costs after the first frame: CPU per `gpukill list --watch --json` frame
# against one `gpukill list --json`, in one run, on a simulated host with PROCESSES extra
# idle processes holding 20 descriptors each (default 3000). The watch learns of holders
# from kernel events (fanotify, the process connector: run as root), with a full sweep
# every 30 frames, and keeps the GPU processes' details between frames; the one-shot list
# sweeps every process and reads every detail each time. The workload that holds GPU 0
# has WORKERS workers (default 4): WORKERS + 1 GPU processes.
# Usage: bench/run_watch_bench.sh [PROCESSES] [SECONDS] [WORKERS]
# GPUKILL_BENCH_PREBUILT=DIR measures the binaries in DIR/bin instead of a Release build.
set -euo pipefail
cd "$(dirname "$0")/.."
processes=${1:-3000}
seconds=${2:-20}
workers=${3:-4}
source bench/build_release.sh
prebuilt_or_release_build gpukill gpusim nvidia_ml_sim
gpukill="$build/bin/gpukill"

scratch=$(mktemp -d /tmp/gpukill-watch-bench-XXXXXX)
pids=()
cleanup() {
  ((${#pids[@]} > 0)) && kill "${pids[@]}" 2>/dev/null
  # The workers outlive their parent (orphaned DataLoader workers): each is killed too.
  [[ -n "${workload:-}" ]] && kill "$workload" ${workload_workers:-} 2>/dev/null
  rm -rf "$scratch"
}
trap cleanup EXIT

"$build/bin/gpusim" init --root "$scratch/host" >/dev/null
eval "$("$build/bin/gpusim" env --root "$scratch/host")"
export GPUKILL_STATE_DIR="$scratch/state" GPUKILL_CONFIG_DIR="$scratch/config"
ready=$("$build/bin/gpusim" run --root "$scratch/host" --gpu 0 --mem 1G --workers "$workers" --background)
workload=$(jq -r '.pid' <<<"$ready")
workload_workers=$(jq -r '.workers[]' <<<"$ready" | tr '\n' ' ')

fds=""
for fd in $(seq 3 22); do fds+=" $fd</dev/null"; done
for _ in $(seq "$processes"); do
  bash -c "exec $fds; exec sleep 3600" &
  pids+=($!)
done
sleep 1  # the last execs land; nothing is measured before this
echo "host: $(ls /proc | grep -c '^[0-9]') processes, $(nproc) CPUs, $(date -u '+%F %T') UTC"

# CPU seconds (user + system) of a finished child, from bash's times.
cpu_of() {
  local TIMEFORMAT='%U %S'
  { time "$@" >/dev/null 2>&1; } 2>&1 | awk '{ print $1 + $2 }'
}

rounds=10
total=0
for _ in $(seq "$rounds"); do
  total=$(awk -v a="$total" -v b="$(cpu_of "$gpukill" list --json)" 'BEGIN { print a + b }')
done
oneshot=$(awk -v t="$total" -v r="$rounds" 'BEGIN { printf "%.4f", t / r }')

frames_file="$scratch/frames.jsonl"
TIMEFORMAT='%U %S'
watch_cpu=$({ time timeout -s INT "$seconds" "$gpukill" list --watch --json --interval 0.2 \
  >"$frames_file" 2>/dev/null || true; } 2>&1 | awk '{ print $1 + $2 }')
frames=$(wc -l <"$frames_file")
per_frame=$(awk -v c="$watch_cpu" -v f="$frames" 'BEGIN { printf "%.4f", c / f }')
ratio=$(awk -v p="$per_frame" -v o="$oneshot" 'BEGIN { printf "%.3f", p / o }')
holders=$(tail -n 1 "$frames_file" | jq '.processes | length')

echo "one-shot list --json: $oneshot s CPU (mean of $rounds)"
echo "watch: $frames frames in ${seconds} s at --interval 0.2, $watch_cpu s CPU in all: $per_frame s a frame (first frames and one full sweep every 30 included)"
echo "frame / one-shot: $ratio (goal < 0.10); holders in the last frame: $holders"
