#!/usr/bin/env bash
# P4: `gpukill agent` against prometheus-node-exporter (Debian) on the same host, in the
# same run: resident memory, and /metrics latency p50/p99 under one scrape a second of
# each, on a simulated host with 2 GPUs and PROCESSES GPU processes (default 50).
# Goal: lower RSS than node_exporter, and a p99 below node_exporter's.
# GPUKILL_BENCH_IDLE=N adds N idle processes holding 20 descriptors each (a busy node's
# process table: the agent's memory must not grow with it).
# GPUKILL_BENCH_PREBUILT=DIR measures the binaries in DIR/bin instead of a Release build.
# Usage: bench/run_agent_bench.sh [SECONDS] [PROCESSES]
# Exit status: 0 both goals met, 2 a goal missed, 1 the benchmark could not run.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
processes=${2:-50}
command -v prometheus-node-exporter >/dev/null || { echo "needs prometheus-node-exporter" >&2; exit 1; }
command -v curl >/dev/null || { echo "needs curl" >&2; exit 1; }
source bench/build_release.sh
prebuilt_or_release_build gpukill gpusim nvidia_ml_sim
gpukill="$build/bin/gpukill"
gpusim="$build/bin/gpusim"

scratch=$(mktemp -d /tmp/gpukill-agent-bench-XXXXXX)
pids=()
cleanup() {
  ((${#pids[@]} > 0)) && kill "${pids[@]}" 2>/dev/null
  rm -rf "$scratch"
}
trap cleanup EXIT

"$gpusim" init --root "$scratch/host" >/dev/null
eval "$("$gpusim" env --root "$scratch/host")"
export GPUKILL_STATE_DIR="$scratch/state" GPUKILL_CONFIG_DIR="$scratch/config"
for i in $(seq "$processes"); do
  ready=$("$gpusim" run --root "$scratch/host" --gpu $((i % 2)) --mem 512M --background)
  pids+=("$(sed -nE 's/.*"pid":([0-9]+).*/\1/p' <<<"$ready")")
done

fds=""
for fd in $(seq 3 22); do fds+=" $fd</dev/null"; done
for _ in $(seq "${GPUKILL_BENCH_IDLE:-0}"); do
  bash -c "exec $fds; exec sleep 3600" &
  pids+=($!)
done

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
agent_port=$(free_port)
node_port=$(free_port)
"$gpukill" agent --listen "127.0.0.1:$agent_port" --interval 1 --no-guard 2>"$scratch/agent.log" &
agent=$!
pids+=("$agent")
prometheus-node-exporter --web.listen-address="127.0.0.1:$node_port" 2>"$scratch/node.log" &
node=$!
pids+=("$node")
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$agent_port/readyz" >/dev/null && curl -sf "http://127.0.0.1:$node_port/metrics" >/dev/null && break
  sleep 0.1
done
echo "host: $(nproc) CPUs, $processes simulated GPU processes on 2 GPUs, $(ls /proc | grep -c '^[0-9]') processes in all, $seconds scrapes each, $(date -u '+%F %T') UTC"

# One scrape a second of each, alternating, timed by curl (seconds to the last byte).
for _ in $(seq "$seconds"); do
  curl -s -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$agent_port/metrics" >>"$scratch/agent.times"
  curl -s -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$node_port/metrics" >>"$scratch/node.times"
  sleep 1
done

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
percentile() { sort -n "$1" | awk -v p="$2" '{ v[NR] = $1 } END { i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; printf "%.2f", v[i] * 1000 }'; }
agent_rss=$(rss_kib "$agent")
node_rss=$(rss_kib "$node")
agent_p50=$(percentile "$scratch/agent.times" 50)
agent_p99=$(percentile "$scratch/agent.times" 99)
node_p50=$(percentile "$scratch/node.times" 50)
node_p99=$(percentile "$scratch/node.times" 99)
agent_series=$(curl -s "http://127.0.0.1:$agent_port/metrics" | grep -vc '^#')
node_series=$(curl -s "http://127.0.0.1:$node_port/metrics" | grep -vc '^#')

printf '\n| | gpukill agent | node_exporter | ratio (agent / node) |\n| --- | --- | --- | --- |\n'
printf '| resident memory | %d KiB | %d KiB | %.2f |\n' "$agent_rss" "$node_rss" "$(awk -v a="$agent_rss" -v n="$node_rss" 'BEGIN { print a / n }')"
printf '| /metrics p50 | %s ms | %s ms | %.2f |\n' "$agent_p50" "$node_p50" "$(awk -v a="$agent_p50" -v n="$node_p50" 'BEGIN { print a / n }')"
printf '| /metrics p99 | %s ms | %s ms | %.2f |\n' "$agent_p99" "$node_p99" "$(awk -v a="$agent_p99" -v n="$node_p99" 'BEGIN { print a / n }')"
printf '| series per scrape | %d | %d | |\n' "$agent_series" "$node_series"

met=0
awk -v a="$agent_rss" -v n="$node_rss" 'BEGIN { exit !(a < n) }' || { echo "goal missed: RSS not below node_exporter's" >&2; met=2; }
awk -v a="$agent_p99" -v n="$node_p99" 'BEGIN { exit !(a < n) }' || { echo "goal missed: p99 not below node_exporter's" >&2; met=2; }
exit "$met"
