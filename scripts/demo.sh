#!/usr/bin/env bash
# The main job: install what is missing, build, and run `gpukill list`.
# On a host with an NVIDIA driver it lists the real GPUs. Without one it builds a
# SIMULATED host with gpusim, starts a few real workload processes on it (a
# trainer, a job whose parent was killed leaving orphaned DataLoader workers that
# still hold memory, and a driver leak), lists them, and stops what it started.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target gpukill gpusim nvidia_ml_sim nvidia_ml_sim_legacy

if ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml.so.1' && [[ -z "${GPUKILL_DEMO_SIMULATE:-}" ]]; then
  exec build/bin/gpukill list --details "$@"
fi

root=$(mktemp -d /tmp/gpukill-demo-XXXXXX)
started=()
cleanup() {
  # Only the processes this script started (their PIDs came from gpusim's ready lines).
  for pid in "${started[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  rm -rf "$root"
}
trap cleanup EXIT

build/bin/gpusim init --root "$root/host" >/dev/null
eval "$(build/bin/gpusim env --root "$root/host")"

# gpusim run --background prints {"pid":P,...,"workers":[W...]} once the workload is ready.
pids_of() { sed -E 's/.*"pid":([0-9]+).*"workers":\[([0-9,]*)\].*/\1 \2/' | tr ',' ' '; }
start() { local line; line=$(build/bin/gpusim run --root "$root/host" --background "$@"); read -r -a ids <<<"$(pids_of <<<"$line")"; started+=("${ids[@]}"); echo "${ids[@]}"; }

start --gpu 0 --mem 30G --util 87 --name python >/dev/null
read -r -a job <<<"$(start --gpu 1 --mem 12G --util 40 --workers 2 --name python)"
kill -KILL "${job[0]}"  # the parent dies; its two workers keep the 12 GiB
build/bin/gpusim leak --root "$root/host" --gpu 1 --mem 4G >/dev/null
for _ in $(seq 100); do kill -0 "${job[0]}" 2>/dev/null || break; sleep 0.05; done

cat <<BANNER
================================================================================
 SIMULATED HOST (gpusim) - no NVIDIA driver on this machine.
 Real processes hold simulated GPUs: a trainer on GPU 0; on GPU 1 a job whose
 parent was killed with kill -9, leaving 2 orphaned workers holding 12 GiB,
 plus 4 GiB leaked by the driver.
================================================================================
BANNER
build/bin/gpukill list --details "$@"
