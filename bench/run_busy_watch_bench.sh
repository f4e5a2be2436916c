#!/usr/bin/env bash
# Watching on a busy node: CPU per `gpukill list --watch --json` frame (from the third
# frame on: the first two cost a full list each) and per agent sample, against one
# `gpukill list --json`, while the benchmark's own generator starts
# RATE short-lived processes a second (fork, exec /bin/true, exit: what DataLoader
# workers, exec probes and cron make), for each RATE in turn, in one run, on a simulated
# host with PROCESSES extra idle processes holding 20 descriptors each (default 3000).
# Run as root: the tracker needs CAP_SYS_ADMIN and CAP_NET_ADMIN. Each row also says how
# often the kernel dropped events (overflows), how many frames a targeted rescan repaired
# and how many swept every process, from the watch's last JSON line.
# Goal (issue 32): a frame and a sample under 0.10 of a one-shot list at 200 starts/s.
# Usage: bench/run_busy_watch_bench.sh [PROCESSES] [SECONDS] [INTERVAL] [RATES...]
#   defaults: 3000 20 1 0 50 100 200
# GPUKILL_BENCH_PREBUILT=DIR measures the binaries in DIR/bin instead of a Release build.
set -euo pipefail
cd "$(dirname "$0")/.."
processes=${1:-3000}
seconds=${2:-20}
interval=${3:-1}
shift $(($# < 3 ? $# : 3))
rates=("$@")
((${#rates[@]} > 0)) || rates=(0 50 100 200)
[[ $(id -u) == 0 ]] || { echo "run as root: the holder tracker needs CAP_SYS_ADMIN and CAP_NET_ADMIN" >&2; exit 1; }
command -v jq >/dev/null || { echo "needs jq" >&2; exit 1; }
source bench/build_release.sh
prebuilt_or_release_build gpukill gpusim nvidia_ml_sim gpukill_start_generator
gpukill="$build/bin/gpukill"
generator="$build/bin/gpukill_start_generator"

scratch=$(mktemp -d /tmp/gpukill-busy-bench-XXXXXX)
pids=()
cleanup() {
  ((${#pids[@]} > 0)) && kill "${pids[@]}" 2>/dev/null
  [[ -n "${workload:-}" ]] && kill "$workload" ${workload_workers:-} 2>/dev/null
  rm -rf "$scratch"
}
trap cleanup EXIT

"$build/bin/gpusim" init --root "$scratch/host" >/dev/null
eval "$("$build/bin/gpusim" env --root "$scratch/host")"
export GPUKILL_STATE_DIR="$scratch/state" GPUKILL_CONFIG_DIR="$scratch/config"
ready=$("$build/bin/gpusim" run --root "$scratch/host" --gpu 0 --mem 1G --workers 4 --background)
workload=$(jq -r '.pid' <<<"$ready")
workload_workers=$(jq -r '.workers[]' <<<"$ready" | tr '\n' ' ')

fds=""
for fd in $(seq 3 22); do fds+=" $fd</dev/null"; done
for _ in $(seq "$processes"); do
  bash -c "exec $fds; exec sleep 3600" &
  pids+=($!)
done
sleep 1  # the last execs land; nothing is measured before this
echo "host: $(ls /proc | grep -c '^[0-9]') processes, $(nproc) CPUs, watch --interval $interval for $seconds s a rate, $(date -u '+%F %T') UTC"

cpu_of() {  # CPU seconds (user + system) of a finished command
  local TIMEFORMAT='%U %S'
  { time "$@" >/dev/null 2>&1; } 2>&1 | awk '{ print $1 + $2 }'
}
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }  # utime + stime, in clock ticks
hz=$(getconf CLK_TCK)

printf '| starts/s (achieved) | list --json CPU | watch frame CPU | frame / list | agent sample CPU | sample / list | overflows | repaired | full sweeps | frames |\n'
printf '|---|---|---|---|---|---|---|---|---|---|\n'
for rate in "${rates[@]}"; do
  "$generator" "$rate" >"$scratch/generator.out" &
  gen=$!
  pids+=("$gen")
  until grep -q ready "$scratch/generator.out" 2>/dev/null; do sleep 0.05; done

  total=0
  for _ in 1 2 3 4 5; do
    total=$(awk -v a="$total" -v b="$(cpu_of "$gpukill" list --json)" 'BEGIN { print a + b }')
  done
  oneshot=$(awk -v t="$total" 'BEGIN { printf "%.4f", t / 5 }')

  # The watch's steady state: its CPU from the third frame on (the first is a one-shot
  # list, the second starts the tracker with a full sweep: both cost a list each).
  frames_file="$scratch/frames.jsonl"
  "$gpukill" list --watch --json --interval "$interval" >"$frames_file" 2>/dev/null &
  watch=$!
  pids+=("$watch")
  until (($(wc -l <"$frames_file") >= 3)); do sleep 0.05; done
  before=$(ticks "$watch")
  first=$(wc -l <"$frames_file")
  sleep "$seconds"
  after=$(ticks "$watch")
  last=$(wc -l <"$frames_file")
  kill -INT "$watch"
  wait "$watch" 2>/dev/null || true
  frames=$((last - first))
  per_frame=$(awk -v a="$before" -v b="$after" -v f="$frames" -v hz="$hz" \
    'BEGIN { printf "%.4f", (b - a) / hz / f }')
  tracking=$(tail -n 1 "$frames_file" | jq -r '.holder_tracking | "\(.event_overflows // "-") \(.repairs // "-") \(.full_sweeps // "-")"')
  read -r overflows repairs sweeps <<<"$tracking"

  "$gpukill" agent --listen 127.0.0.1:0 --interval "$interval" --no-guard --rogue-interval 0 \
    2>"$scratch/agent.log" &
  agent=$!
  pids+=("$agent")
  until grep -q "holder tracking:" "$scratch/agent.log" 2>/dev/null; do sleep 0.1; done
  before=$(ticks "$agent")
  sleep "$seconds"
  after=$(ticks "$agent")
  kill "$agent"
  wait "$agent" 2>/dev/null || true
  per_sample=$(awk -v a="$before" -v b="$after" -v s="$seconds" -v i="$interval" -v hz="$hz" \
    'BEGIN { printf "%.4f", (b - a) / hz / (s / i) }')

  kill -TERM "$gen"
  wait "$gen" 2>/dev/null || true
  achieved=$(tail -n 1 "$scratch/generator.out" | sed -nE 's/.*: ([0-9.]+) a second/\1/p')
  printf '| %s (%s) | %s s | %s s | %.3f | %s s | %.3f | %s | %s | %s | %s |\n' "$rate" "${achieved:-0}" \
    "$oneshot" "$per_frame" "$(awk -v p="$per_frame" -v o="$oneshot" 'BEGIN { print p / o }')" \
    "$per_sample" "$(awk -v p="$per_sample" -v o="$oneshot" 'BEGIN { print p / o }')" \
    "$overflows" "$repairs" "$sweeps" "$frames"
done
