#!/usr/bin/env bash
# Fleet over SSH, measured side by side in one run (docs/BENCHMARKS.md, P5 and P7):
#   P5: `gpukill list` over SSH to N hosts against the same to 1 host;
#   P7 (SSH part): one fleet `kill --batch --force` ending a 2 GiB workload on every one
#       of N hosts, with each host's memory verified back, against a plain
#       `for host in ...; do ssh host gpukill kill ...; done` loop doing the same.
# Every host is a real sshd on a loopback port (root needed) with its own gpusim root,
# host keys and a client key generated here, all removed at the end.
# Usage: sudo bench/run_fleet_bench.sh [HOSTS] [ROUNDS]   (default 32 hosts, 5 rounds)
# GPUKILL_BENCH_PREBUILT=DIR uses DIR/bin's binaries instead of a Release build.
set -euo pipefail
cd "$(dirname "$0")/.."
hosts=${1:-32}
rounds=${2:-5}
[[ $(id -u) -eq 0 ]] || { echo "run_fleet_bench: needs root (it starts sshd)" >&2; exit 4; }

source bench/build_release.sh
prebuilt_or_release_build gpukill gpusim nvidia_ml_sim
gpukill=$(realpath "$build/bin/gpukill")
gpusim=$(realpath "$build/bin/gpusim")

dir=$(mktemp -d /tmp/gpukill-fleet-bench-XXXXXX)
sshd_pids=()
workload_pids=()
cleanup() {
    for pid in "${workload_pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    for pid in "${sshd_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT
mkdir -p /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$dir/client_key"
cp "$dir/client_key.pub" "$dir/authorized_keys"
host_key=$(cut -d' ' -f1,2 "$dir/host_key.pub")

base_port=$((20000 + RANDOM % 20000))
: > "$dir/known_hosts"
: > "$dir/ssh_config"
for i in $(seq 1 "$hosts"); do
    root=$dir/h$i
    "$gpusim" init --root "$root" >/dev/null
    setenv=$("$gpusim" env --root "$root" | sed -e "s/^export //" -e "s/'//g" | tr '\n' ' ')
    setenv="$setenv GPUKILL_STATE_DIR=$dir/state$i"
    port=$((base_port + i))
    cat > "$dir/sshd$i.conf" <<CONF
Port $port
ListenAddress 127.0.0.1
HostKey $dir/host_key
AuthorizedKeysFile $dir/authorized_keys
PidFile $dir/sshd$i.pid
StrictModes no
UsePAM no
PasswordAuthentication no
LogLevel ERROR
MaxStartups 200
SetEnv $setenv
CONF
    /usr/sbin/sshd -D -e -f "$dir/sshd$i.conf" 2>"$dir/sshd$i.log" &
    sshd_pids+=($!)
    echo "[127.0.0.1]:$port $host_key" >> "$dir/known_hosts"
    printf 'Host node%d\n  HostName 127.0.0.1\n  Port %d\n' "$i" "$port" >> "$dir/ssh_config"
done
cat >> "$dir/ssh_config" <<CONF
Host *
  User root
  IdentityFile $dir/client_key
  IdentitiesOnly yes
  IdentityAgent none
  UserKnownHostsFile $dir/known_hosts
  GlobalKnownHostsFile /dev/null
  BatchMode yes
CONF
for i in $(seq 1 "$hosts"); do  # bounded readiness wait on each port
    for _ in $(seq 1 500); do
        (exec 3<>"/dev/tcp/127.0.0.1/$((base_port + i))") 2>/dev/null && break
        sleep 0.01
    done
done

fleet=("$gpukill" --ssh-config "$dir/ssh_config" --remote-gpukill "$gpukill")
now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
elapsed() {  # seconds one command takes
    local start end
    start=$(now)
    "$@" >/dev/null
    end=$(now)
    echo "$end - $start" | bc -l
}

one=() all=()
for _ in $(seq 1 "$rounds"); do  # interleaved, so both see the same machine
    one+=("$(elapsed "${fleet[@]}" --hosts node1 list --json)")
    all+=("$(elapsed "${fleet[@]}" --hosts "node[1-$hosts]" list --json)")
done
one_median=$(printf '%s\n' "${one[@]}" | median)
all_median=$(printf '%s\n' "${all[@]}" | median)

# The same with a remote side that costs nothing (a script answering --version and one
# JSON document): what the fan-out and SSH cost, apart from the remote gpukill's own
# CPU, which here all N simulated hosts take from this one machine's cores.
cat > "$dir/stub-gpukill" <<'STUB'
#!/bin/sh
if [ "$1" = --version ]; then echo "gpukill 0.1.0 (commit stub)"; else echo '{"schema_version": 1}'; fi
STUB
chmod +x "$dir/stub-gpukill"
stub=("$gpukill" --ssh-config "$dir/ssh_config" --remote-gpukill "$dir/stub-gpukill")
stub_one=() stub_all=()
for _ in $(seq 1 "$rounds"); do
    stub_one+=("$(elapsed "${stub[@]}" --hosts node1 list --json)")
    stub_all+=("$(elapsed "${stub[@]}" --hosts "node[1-$hosts]" list --json)")
done
stub_one_median=$(printf '%s\n' "${stub_one[@]}" | median)
stub_all_median=$(printf '%s\n' "${stub_all[@]}" | median)

start_workloads() {
    workload_pids=()
    for i in $(seq 1 "$hosts"); do
        "$gpusim" run --root "$dir/h$i" --gpu 0 --mem 2G --name benchjob > "$dir/ready$i" &
        workload_pids+=($!)
    done
    for i in $(seq 1 "$hosts"); do
        for _ in $(seq 1 1000); do [[ -s "$dir/ready$i" ]] && break; sleep 0.01; done
    done
}
stop_workloads() {  # what a kill did not end (it should have ended all): never left behind
    for pid in "${workload_pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    wait "${workload_pids[@]}" 2>/dev/null || true
}
kill_args=(kill --filter '^benchjob$' --batch --force --json)
start_workloads
fleet_start=$(now)
"${fleet[@]}" --hosts "node[1-$hosts]" "${kill_args[@]}" > "$dir/fleet_kill.json" || true
fleet_end=$(now)
verified=$(jq '[.hosts[] | select(.result.gpus[0].released == true)] | length' "$dir/fleet_kill.json")
stop_workloads

start_workloads
loop_start=$(now)
for i in $(seq 1 "$hosts"); do
    ssh -F "$dir/ssh_config" "node$i" "$gpukill" "${kill_args[@]}" > /dev/null || true
done
loop_end=$(now)
stop_workloads

fleet_kill=$(echo "$fleet_end - $fleet_start" | bc -l)
loop_kill=$(echo "$loop_end - $loop_start" | bc -l)
printf 'hosts: %d (loopback sshd each), rounds: %d, binaries: %s\n' "$hosts" "$rounds" "$build"
printf 'P5 list over SSH: 1 host %.3f s, %d hosts %.3f s (median): ratio %.2f (target <= 2)\n' \
    "$one_median" "$hosts" "$all_median" "$(echo "$all_median / $one_median" | bc -l)"
printf 'P5 transport alone (stub remote): 1 host %.3f s, %d hosts %.3f s (median): ratio %.2f\n' \
    "$stub_one_median" "$hosts" "$stub_all_median" "$(echo "$stub_all_median / $stub_one_median" | bc -l)"
printf 'P7 kill over SSH: fleet %.3f s (%d/%d hosts verified released), ssh loop %.3f s: loop/fleet %.1fx\n' \
    "$fleet_kill" "$verified" "$hosts" "$loop_kill" "$(echo "$loop_kill / $fleet_kill" | bc -l)"
