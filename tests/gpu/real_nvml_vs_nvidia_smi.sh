#!/usr/bin/env bash
# ctest label `gpu`: compares `gpukill list --json` with nvidia-smi on real NVIDIA
# hardware. Exit 77 (reported by ctest as skipped) where there is none.
set -euo pipefail
gpukill=$1
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIPPED: no NVIDIA GPU or driver on this host"
  exit 77
fi
json=$("$gpukill" list --json)
smi=$(nvidia-smi --query-gpu=index,uuid,pci.bus_id,memory.total --format=csv,noheader,nounits)
status=0
while IFS=', ' read -r index uuid bus total_mib; do
  got_uuid=$(jq -r ".gpus[$index].uuid" <<<"$json")
  got_bus=$(jq -r ".gpus[$index].pci_bus_id" <<<"$json")
  got_total=$(jq -r ".gpus[$index].memory_total_bytes" <<<"$json")
  want_bus=$(tr 'A-F' 'a-f' <<<"${bus:4}")
  [[ "$got_uuid" == "$uuid" ]] || { echo "GPU $index uuid: gpukill $got_uuid, nvidia-smi $uuid"; status=1; }
  [[ "$got_bus" == "$want_bus" ]] || { echo "GPU $index bus: gpukill $got_bus, nvidia-smi $want_bus"; status=1; }
  (( got_total / 1048576 == total_mib )) || { echo "GPU $index total: gpukill $((got_total/1048576)) MiB, nvidia-smi $total_mib MiB"; status=1; }
done <<<"$smi"
exit $status
