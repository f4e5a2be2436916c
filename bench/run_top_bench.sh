#!/usr/bin/env bash
# What the monitor costs: CPU time of a running `gpukill top` (read from /proc/PID/stat,
# utime + stime) over SECONDS at --interval INTERVAL, against `gpukill list --json` run
# once per interval (its CPU measured as the mean of 10 runs), in one run, on a
# simulated host with PROCESSES extra idle processes holding 20 descriptors each
# (default 3000). The monitor runs in a real terminal (tmux, a private server).
# Usage: bench/run_top_bench.sh [PROCESSES] [SECONDS] [INTERVAL]
set -euo pipefail
cd "$(dirname "$0")/.."
processes=${1:-3000}
seconds=${2:-20}
interval=${3:-0.5}
source bench/build_release.sh
release_build gpukill gpusim nvidia_ml_sim
gpukill="$build/bin/gpukill"

scratch=$(mktemp -d /tmp/gpukill-top-bench-XXXXXX)
socket="gpukill-top-bench-$$"
pids=()
cleanup() {
  tmux -L "$socket" kill-server 2>/dev/null || true
  ((${#pids[@]} > 0)) && kill "${pids[@]}" 2>/dev/null
  [[ -n "${workload:-}" ]] && kill "$workload" 2>/dev/null
  rm -rf "$scratch"
}
trap cleanup EXIT

"$build/bin/gpusim" init --root "$scratch/host" >/dev/null
eval "$("$build/bin/gpusim" env --root "$scratch/host")"
export GPUKILL_STATE_DIR="$scratch/state" GPUKILL_CONFIG_DIR="$scratch/config"
ready=$("$build/bin/gpusim" run --root "$scratch/host" --gpu 0 --mem 1G --workers 4 --background)
workload=$(sed -nE 's/.*"pid":([0-9]+).*/\1/p' <<<"$ready")

fds=""
for fd in $(seq 3 22); do fds+=" $fd</dev/null"; done
for _ in $(seq "$processes"); do
  bash -c "exec $fds; exec sleep 3600" &
  pids+=($!)
done
sleep 1  # the last execs land; nothing is measured before this
echo "host: $(ls /proc | grep -c '^[0-9]') processes, $(nproc) CPUs, $(date -u '+%F %T') UTC"

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

# The tmux server inherits this environment (the simulated host's variables).
tmux -L "$socket" -f /dev/null new-session -d -s top -x 120 -y 40 \
  "exec $gpukill top --interval $interval"
top_pid=$(tmux -L "$socket" list-panes -t top -F '#{pane_pid}')
for _ in $(seq 200); do  # the first frame (bounded: 20 s)
  tmux -L "$socket" capture-pane -p -t top | grep -q 'SEEN BY' && break
  sleep 0.1
done
ticks() { awk '{ print $14 + $15 }' "/proc/$top_pid/stat"; }
hz=$(getconf CLK_TCK)
sleep 3  # past the first frames' full sweeps: the steady state is measured
before=$(ticks)
sleep "$seconds"
after=$(ticks)
tmux -L "$socket" send-keys -t top q

monitor=$(awk -v a="$after" -v b="$before" -v hz="$hz" 'BEGIN { printf "%.4f", (a - b) / hz }')
intervals=$(awk -v s="$seconds" -v i="$interval" 'BEGIN { printf "%d", s / i }')
per_interval=$(awk -v m="$monitor" -v n="$intervals" 'BEGIN { printf "%.4f", m / n }')
ratio=$(awk -v p="$per_interval" -v o="$oneshot" 'BEGIN { printf "%.3f", p / o }')
echo "one-shot list --json: $oneshot s CPU (mean of $rounds)"
echo "top --interval $interval: $monitor s CPU in $seconds s ($intervals intervals): $per_interval s an interval"
echo "top per interval / list --json once per interval: $ratio (goal <= 1)"
