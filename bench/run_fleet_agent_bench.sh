#!/usr/bin/env bash
# P7 through agents (docs/BENCHMARKS.md): one fleet `kill --transport agent` ending a
# 2 GiB gpusim workload on every one of HOSTS simulated hosts, each host a network
# namespace of its own (a veth pair, 10.232.I.2 inside) running its own `gpukill agent`
# over TLS (a CA and one server certificate for every address, made here), and each
# reporting the memory verified back. Goal (issue 13): under 5 s end to end for 100.
# The same reclaim through SSH and as a plain ssh loop is bench/run_fleet_bench.sh.
# Usage: sudo bench/run_fleet_agent_bench.sh [HOSTS] [FANOUT]   (default 100 hosts, 32)
# GPUKILL_BENCH_PREBUILT=DIR uses DIR/bin's binaries instead of a Release build.
# Exit status: 0 goal met, 2 goal missed, 1 the benchmark could not run.
set -euo pipefail
cd "$(dirname "$0")/.."
hosts=${1:-100}
fanout=${2:-32}
((hosts >= 1 && hosts <= 250)) || { echo "run_fleet_agent_bench: 1 to 250 hosts" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "run_fleet_agent_bench: needs root (network namespaces)" >&2; exit 1; }
for tool in ip openssl jq; do
    command -v "$tool" >/dev/null || { echo "run_fleet_agent_bench: needs $tool" >&2; exit 1; }
done

source bench/build_release.sh
prebuilt_or_release_build gpukill gpusim nvidia_ml_sim
gpukill=$(realpath "$build/bin/gpukill")
gpusim=$(realpath "$build/bin/gpusim")

dir=$(mktemp -d /tmp/gpukill-agent-fleet-XXXXXX)
tag=gka$$
pids=()
cleanup() {
    ((${#pids[@]} > 0)) && kill -KILL "${pids[@]}" 2>/dev/null
    wait 2>/dev/null || true
    for i in $(seq 0 $((hosts - 1))); do ip netns del "${tag}n$i" 2>/dev/null || true; done
    rm -rf "$dir"
}
trap cleanup EXIT

# One CA; one server certificate naming every host's address.
sans=$(for i in $(seq 0 $((hosts - 1))); do printf 'IP:10.232.%d.2,' "$i"; done)
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
    -subj /CN=bench-ca -keyout "$dir/ca.key" -out "$dir/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=agent \
    -keyout "$dir/agent.key" -out "$dir/agent.csr" 2>/dev/null
printf 'subjectAltName=%s\n' "${sans%,}" >"$dir/san.ext"
openssl x509 -req -in "$dir/agent.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial \
    -days 1 -extfile "$dir/san.ext" -out "$dir/agent.pem" 2>/dev/null
chmod 600 "$dir/agent.key"
secret=$(openssl rand -hex 24)
printf 'bench read,act %s\n' "$secret" >"$dir/tokens"
printf '%s\n' "$secret" >"$dir/client-token"
chmod 600 "$dir/tokens" "$dir/client-token"

targets=()
for i in $(seq 0 $((hosts - 1))); do
    ns=${tag}n$i outside=${tag}h$i address=10.232.$i.2
    ip netns add "$ns"
    ip link add "$outside" type veth peer name eth0 netns "$ns"
    ip addr add "10.232.$i.1/24" dev "$outside"
    ip link set "$outside" up
    ip -n "$ns" addr add "$address/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    root=$dir/h$i
    "$gpusim" init --root "$root" >/dev/null
    ready=$("$gpusim" run --root "$root" --gpu 0 --mem 2G --name benchjob --background)
    pids+=("$(jq -r .pid <<<"$ready")")
    (
        eval "$("$gpusim" env --root "$root")"
        export GPUKILL_STATE_DIR=$dir/state$i GPUKILL_CONFIG_DIR=$dir/config$i
        exec ip netns exec "$ns" "$gpukill" agent --listen "$address:9402" \
            --tls-cert "$dir/agent.pem" --tls-key "$dir/agent.key" --token-file "$dir/tokens" \
            --no-guard --interval 60 --rogue-interval 0 >"$dir/agent$i.log" 2>&1
    ) &
    pids+=("$!")
    targets+=("\"$address:9402\"")
done
printf '[{"targets": [%s]}]\n' "$(IFS=,; echo "${targets[*]}")" >"$dir/gpu_nodes.json"

# Every agent serves before the clock starts.
for i in $(seq 0 $((hosts - 1))); do
    for _ in $(seq 300); do grep -q "listening on" "$dir/agent$i.log" 2>/dev/null && break; sleep 0.1; done
    grep -q "listening on" "$dir/agent$i.log" || { echo "agent $i did not start: $(cat "$dir/agent$i.log")" >&2; exit 1; }
done
echo "hosts: $hosts network namespaces, one agent each over TLS, fanout $fanout, binaries: $build, $(nproc) CPUs, $(date -u '+%F %T') UTC"

fleet=("$gpukill" --hosts-file "$dir/gpu_nodes.json" --transport agent --agent-ca "$dir/ca.pem"
    --token-file "$dir/client-token" --fanout "$fanout")
start=$(date +%s.%N)
"${fleet[@]}" list --json >"$dir/list.json" || true
list_seconds=$(echo "$(date +%s.%N) - $start" | bc)
start=$(date +%s.%N)
code=0
"${fleet[@]}" kill --filter '^benchjob$' --batch --force --json >"$dir/kill.json" || code=$?
kill_seconds=$(echo "$(date +%s.%N) - $start" | bc)

listed=$(jq '[.hosts[] | select(.ok)] | length' "$dir/list.json")
verified=$(jq '[.hosts[] | select(.result.gpus[0].released == true and .result.gpus[0].memory_reclaimed_bytes == 2147483648)] | length' "$dir/kill.json")
alive=0
for i in $(seq 0 $((hosts - 1))); do
    pid=${pids[$((2 * i))]}
    [[ -d /proc/$pid ]] && [[ $(awk '{print $3}' "/proc/$pid/stat") != Z ]] && alive=$((alive + 1))
done
printf 'P7 list through agents: %.3f s (%d/%d hosts answered)\n' "$list_seconds" "$listed" "$hosts"
printf 'P7 kill through agents: %.3f s, exit %d, %d/%d hosts verified 2 GiB released, %d workloads still alive\n' \
    "$kill_seconds" "$code" "$verified" "$hosts" "$alive"
if ((verified == hosts && alive == 0)) && (($(echo "$kill_seconds < 5" | bc))); then exit 0; fi
echo "goal missed: every host verified, under 5 s" >&2
exit 2
