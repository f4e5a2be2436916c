#!/usr/bin/env bash
# Prepared check for a host with a real NVIDIA GPU (run once per issue on a
# borrowed machine). It never resets a GPU, changes its settings, or signals a
# process it did not start. Results go to $OUT (or ./hardware-check-out).
#   1. `gpukill list --json` against nvidia-smi's query-gpu and query-compute-apps
#      taken at the same moment;
#   2. a PyTorch process allocating about 10 GiB: listed with matching memory and
#      user, then stopped.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/hardware-check-out}
mkdir -p "$out"
gpukill=${GPUKILL:-build/bin/gpukill}

log() { echo "$*" | tee -a "$out/summary.txt"; }

nvidia-smi -L | tee "$out/nvidia-smi-L.txt"
"$gpukill" doctor | tee "$out/doctor.txt"

snapshot() {
  local tag=$1
  nvidia-smi --query-gpu=index,uuid,pci.bus_id,name,memory.total,memory.used,utilization.gpu,temperature.gpu,power.draw \
    --format=csv,noheader,nounits >"$out/$tag-smi-gpus.csv"
  nvidia-smi --query-compute-apps=pid,gpu_uuid,used_memory --format=csv,noheader,nounits >"$out/$tag-smi-apps.csv"
  "$gpukill" list --json >"$out/$tag-gpukill.json"
  "$gpukill" list --details >"$out/$tag-gpukill.txt"
}

compare() {
  local tag=$1
  while IFS=', ' read -r index uuid bus name_and_rest; do
    local g=".gpus[$index]"
    log "[$tag] GPU $index uuid smi=$uuid gpukill=$(jq -r "$g.uuid" "$out/$tag-gpukill.json")"
    log "[$tag] GPU $index bus smi=$bus gpukill=$(jq -r "$g.pci_bus_id" "$out/$tag-gpukill.json")"
  done <"$out/$tag-smi-gpus.csv"
  log "[$tag] smi memory (index,total MiB,used MiB): $(cut -d, -f1,5,6 "$out/$tag-smi-gpus.csv" | tr '\n' ';')"
  log "[$tag] gpukill memory (index,total MiB,used MiB): $(jq -r '.gpus[] | "\(.index),\(.memory_total_bytes/1048576|floor),\(.memory_used_bytes/1048576|floor)"' "$out/$tag-gpukill.json" | tr '\n' ';')"
  log "[$tag] smi apps (pid,uuid,MiB): $(tr '\n' ';' <"$out/$tag-smi-apps.csv")"
  log "[$tag] gpukill processes (pid,user,gpu,MiB,seen_by): $(jq -r '.processes[] | "\(.pid),\(.user),\(.gpus[0].index),\((.gpus[0].memory_bytes // 0)/1048576|floor),\(.gpus[0].seen_by|join("+"))"' "$out/$tag-gpukill.json" | tr '\n' ';')"
}

snapshot idle
compare idle

if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  python3 - <<'PY' &
import torch, time, sys
x = torch.empty(10 * 1024**3, dtype=torch.uint8, device="cuda:0")
torch.cuda.synchronize()
print("allocated", flush=True)
time.sleep(600)
PY
  torch_pid=$!
  for _ in $(seq 200); do
    nvidia-smi --query-compute-apps=pid --format=csv,noheader | grep -qw "$torch_pid" && break
    sleep 0.1
  done
  snapshot torch
  compare torch
  log "[torch] started pid $torch_pid as $(id -un)"
  kill -TERM "$torch_pid"; wait "$torch_pid" 2>/dev/null
  snapshot after
  compare after

  # The reclaim check: a parent holding ~20 GiB with two DataLoader-style children
  # that inherit its CUDA context fds. `kill -9` on the parent alone, then see
  # whether the memory stays while the children live, then reclaim with gpukill.
  python3 - <<'PY' &
import os, time, torch
x = torch.empty(20 * 1024**3, dtype=torch.uint8, device="cuda:0")
torch.cuda.synchronize()
for _ in range(2):
    if os.fork() == 0:          # children keep the inherited device fds, touch no CUDA
        while True:
            time.sleep(60)
time.sleep(600)
PY
  parent=$!
  for _ in $(seq 300); do
    nvidia-smi --query-compute-apps=pid --format=csv,noheader | grep -qw "$parent" && break
    sleep 0.1
  done
  children=$(pgrep -P "$parent" | tr '\n' ' ')
  snapshot reclaim-before
  log "[reclaim] parent $parent children $children"
  kill -KILL "$parent"; wait "$parent" 2>/dev/null
  for _ in $(seq 20); do sleep 0.1; done   # let the driver settle; this is observation, not a wait for a result
  snapshot reclaim-after-kill9
  compare reclaim-after-kill9
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  # --any-process: the check started every child itself; one that never opened the GPU
  # must not abort the reclaim of the others.
  "$gpukill" kill --json --force --timeout-secs 2 --any-process $(for c in $children; do echo --pid "$c"; done) >"$out/reclaim-gpukill.json"
  log "[reclaim] gpukill exit $? after $(echo "$(date +%s.%N) - $start" | bc) s"
  log "[reclaim] gpukill says: $(jq -c '.gpus' "$out/reclaim-gpukill.json")"
  snapshot reclaim-after
  compare reclaim-after
else
  log "PyTorch with CUDA not available: the 10 GiB and 20 GiB allocation checks were not run"
fi
