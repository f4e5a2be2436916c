#!/usr/bin/env bash
# Watching on a busy node: CPU per `gpukill list --watch --json` frame (from the third
# frame on: the first two cost a full list each), per `gpukill top` refresh (in a real
# terminal: tmux, a private server) and per agent sample, against one
# `gpukill list --json --no-agent`; and the wall time of a one-shot `gpukill list --json`
# answered by the running agent over its local channel, against the same list swept.
# All while the benchmark's own generator starts RATE short-lived processes a second
# (fork, exec /bin/true, exit: what DataLoader workers, exec probes and cron make), for
# each RATE in turn, in one run, on a simulated host with PROCESSES extra idle processes
# holding 20 descriptors each (default 3000). Run as root: the tracker needs
# CAP_SYS_ADMIN and CAP_NET_ADMIN, and only root's list asks the agent. Each row also
# says how often the kernel dropped events (overflows), how many frames a targeted
# rescan repaired and how many swept every process, from the watch's last JSON line;
# and whether every agent-answered list said `"source":"agent"` and named the same
# holders (PID, GPU, memory) as the sweep.
# Goals (issue 32): a frame, a refresh and a sample under 0.10 of a one-shot list at 200
# starts/s; a list through the agent under 5 ms at 10,000 processes and 200 starts/s.
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
for tool in jq tmux curl; do command -v "$tool" >/dev/null || { echo "needs $tool" >&2; exit 1; }; done
source bench/build_release.sh
prebuilt_or_release_build gpukill gpusim nvidia_ml_sim gpukill_start_generator
gpukill="$build/bin/gpukill"
generator="$build/bin/gpukill_start_generator"

scratch=$(mktemp -d /tmp/gpukill-busy-bench-XXXXXX)
socket="gpukill-busy-bench-$$"
pids=()
cleanup() {
  set +e  # a process already gone must not stop the rest from being stopped
  tmux -L "$socket" kill-server 2>/dev/null || true
  ((${#pids[@]} > 0)) && kill "${pids[@]}" 2>/dev/null
  [[ -n "${workload:-}" ]] && kill "$workload" ${workload_workers:-} 2>/dev/null
  [[ -n "${population:-}" ]] && kill -- -"$population" 2>/dev/null
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
# The idle processes are the jobs of one holder shell in its own session, not of this
# one: a shell with thousands of jobs forks and reaps slowly, and the wall times below
# are measured from this shell.
setsid bash -c "for _ in \$(seq $processes); do bash -c 'exec $fds; exec sleep 3600' & done
  echo started \$\$; wait" >"$scratch/population.out" 2>&1 &
until grep -q started "$scratch/population.out" 2>/dev/null; do sleep 0.1; done
population=$(sed -nE 's/^started ([0-9]+)$/\1/p' "$scratch/population.out")  # its session
sleep 1  # the last execs land; nothing is measured before this
echo "host: $(ls /proc | grep -c '^[0-9]') processes, $(nproc) CPUs, watch --interval $interval for $seconds s a rate, $(date -u '+%F %T') UTC"

cpu_of() {  # CPU seconds (user + system) of a finished command
  local TIMEFORMAT='%U %S'
  { time "$@" >/dev/null 2>&1; } 2>&1 | awk '{ print $1 + $2 }'
}
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }  # utime + stime, in clock ticks
hz=$(getconf CLK_TCK)

median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
p90() { sort -n | awk '{ v[NR] = $1 } END { i = int(NR * 0.9 + 0.5); printf "%.1f", v[i < 1 ? 1 : i] }'; }
wall_ms() {  # wall time of one run of a command, in milliseconds, as a caller sees it
  local start=$EPOCHREALTIME
  "$@" >/dev/null 2>&1
  awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f\n", (b - a) * 1000 }'
}
holders() { jq -c '[.processes[]? | {pid, start_time_ticks, gpus: [.gpus[] | {index, memory_bytes}]}] | sort_by(.pid)'; }

# Steady-state CPU per interval of a running process, from the first frames on: $1 is
# its PID; it has already drawn the frames that cost a list each.
cpu_per_interval() {
  local before after
  before=$(ticks "$1")
  sleep "$seconds"
  after=$(ticks "$1")
  awk -v a="$before" -v b="$after" -v s="$seconds" -v i="$interval" -v hz="$hz" \
    'BEGIN { printf "%.4f", (b - a) / hz / (s / i) }'
}

printf '| starts/s (achieved) | list --json --no-agent CPU | watch frame CPU | frame / list | top refresh CPU | refresh / list | agent sample CPU | sample / list | watch: overflows / repaired / full sweeps | agent, while measured: the same | list wall, swept (median of 5) | list wall, through the agent (median of 50, p90) | swept / agent | source agent, same holders |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
for rate in "${rates[@]}"; do
  "$generator" "$rate" >"$scratch/generator.out" &
  gen=$!
  pids+=("$gen")
  until grep -q ready "$scratch/generator.out" 2>/dev/null; do sleep 0.05; done

  total=0
  for _ in 1 2 3 4 5; do
    total=$(awk -v a="$total" -v b="$(cpu_of "$gpukill" list --json --no-agent)" 'BEGIN { print a + b }')
  done
  oneshot=$(awk -v t="$total" 'BEGIN { printf "%.4f", t / 5 }')

  # The watch from its third frame on (the first is a one-shot list, the second starts
  # the tracker with a full sweep: both cost a list each).
  frames_file="$scratch/frames.jsonl"
  "$gpukill" list --watch --json --interval "$interval" >"$frames_file" 2>/dev/null &
  watch=$!
  pids+=("$watch")
  until (($(wc -l <"$frames_file") >= 3)); do sleep 0.05; done
  per_frame=$(cpu_per_interval "$watch")
  kill -INT "$watch"
  wait "$watch" 2>/dev/null || true
  tracking=$(tail -n 1 "$frames_file" | jq -r '.holder_tracking | "\(.event_overflows // "-") \(.repairs // "-") \(.full_sweeps // "-")"')
  read -r overflows repairs sweeps <<<"$tracking"

  # top in a terminal; its status line says "tracked" once the tracker answers a
  # refresh, and the next refresh is measured from.
  tmux -L "$socket" -f /dev/null new-session -d -s top -x 160 -y 50 \
    "exec $gpukill top --interval $interval"
  top_pid=$(tmux -L "$socket" list-panes -t top -F '#{pane_pid}')
  for _ in $(seq 600); do  # bounded: 60 s
    tmux -L "$socket" capture-pane -p -t top | grep -q 'SEEN BY' && break
    sleep 0.1
  done
  sleep "$(awk -v i="$interval" 'BEGIN { print 2 * i + 0.5 }')"  # past the two frames that cost a list
  per_refresh=$(cpu_per_interval "$top_pid")
  tmux -L "$socket" send-keys -t top q
  tmux -L "$socket" kill-server 2>/dev/null || true

  "$gpukill" agent --listen 127.0.0.1:0 --interval "$interval" --no-guard --rogue-interval 0 \
    2>"$scratch/agent.log" &
  agent=$!
  pids+=("$agent")
  until grep -q "holder tracking:" "$scratch/agent.log" 2>/dev/null; do sleep 0.1; done
  metrics_url="$(sed -nE 's/.*listening on (http:[^ ]+).*/\1/p' "$scratch/agent.log")/metrics"
  agent_counters() {  # overflows, repairs and full sweeps so far, from its metrics
    curl -fsS "$metrics_url" | awk '
      /^gpukill_agent_holder_event_overflows_total / { o = $2 }
      /^gpukill_agent_holder_event_repairs_total / { r = $2 }
      /^gpukill_agent_holder_full_sweeps_total / { f = $2 }
      END { print o + 0, r + 0, f + 0 }'
  }
  read -r overflows_before repairs_before sweeps_before <<<"$(agent_counters)"
  per_sample=$(cpu_per_interval "$agent")
  read -r overflows_after repairs_after sweeps_after <<<"$(agent_counters)"
  agent_events="$((overflows_after - overflows_before))/$((repairs_after - repairs_before))/$((sweeps_after - sweeps_before))"

  # A one-shot list as root, answered by this agent; then the same list swept. Both
  # are the wall time a caller waits, process start included.
  : >"$scratch/agent-walls"
  : >"$scratch/swept-walls"
  verdict=yes
  for _ in $(seq 50); do wall_ms "$gpukill" list --json >>"$scratch/agent-walls"; done
  for _ in 1 2 3 4 5; do wall_ms "$gpukill" list --json --no-agent >>"$scratch/swept-walls"; done
  for _ in 1 2 3; do
    through_agent=$("$gpukill" list --json)
    swept=$("$gpukill" list --json --no-agent)
    [[ $(jq -r '.source' <<<"$through_agent") == agent ]] || verdict="no: source $(jq -r '.source' <<<"$through_agent")"
    if [[ "$(holders <<<"$through_agent")" != "$(holders <<<"$swept")" ]]; then
      verdict="no: holders differ"
      diff <(holders <<<"$through_agent" | jq -c '.[]') <(holders <<<"$swept" | jq -c '.[]') >&2 || true
    fi
  done
  kill "$agent"
  wait "$agent" 2>/dev/null || true
  agent_wall="$(median <"$scratch/agent-walls") ($(p90 <"$scratch/agent-walls"))"
  swept_wall=$(median <"$scratch/swept-walls")

  kill -TERM "$gen"
  wait "$gen" 2>/dev/null || true
  achieved=$(tail -n 1 "$scratch/generator.out" | sed -nE 's/.*: ([0-9.]+) a second/\1/p')
  ratio() { awk -v p="$1" -v o="$2" 'BEGIN { printf "%.3f", p / o }'; }
  printf '| %s (%s) | %s s | %s s | %s | %s s | %s | %s s | %s | %s/%s/%s | %s | %s ms | %s ms | %.0fx | %s |\n' \
    "$rate" "${achieved:-0}" "$oneshot" \
    "$per_frame" "$(ratio "$per_frame" "$oneshot")" \
    "$per_refresh" "$(ratio "$per_refresh" "$oneshot")" \
    "$per_sample" "$(ratio "$per_sample" "$oneshot")" \
    "$overflows" "$repairs" "$sweeps" "$agent_events" \
    "$swept_wall" "$agent_wall" "$(awk -v s="$swept_wall" -v a="${agent_wall%% *}" 'BEGIN { print s / a }')" "$verdict"
done
