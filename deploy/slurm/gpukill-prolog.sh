#!/usr/bin/env bash
# Slurm prolog (slurm.conf: Prolog=/etc/slurm/gpukill-prolog.sh; runs as root on the node
# before a job starts): refuse to start the job on a dirty GPU. A GPU in SLURM_JOB_GPUS
# that any process holds, whose memory is used while nobody holds it (soft-locked), or
# that went missing makes the prolog exit 1: Slurm then requeues the job and drains the
# node, with the reason set here (scontrol update ... Reason=...). Read-only: nothing is
# signalled (the epilog cleans up; see gpukill-epilog.sh).
#
# Needs gpukill and jq. Environment: GPUKILL (path), GPUKILL_PROLOG_UNACCOUNTED (memory
# nobody accounts for that makes a GPU dirty, default 256M).
set -uo pipefail

gpukill=${GPUKILL:-gpukill}
job=${SLURM_JOB_ID:-?}
gpus=${SLURM_JOB_GPUS:-}
node=${SLURMD_NODENAME:-$(hostname -s)}

[[ -z "$gpus" ]] && exit 0
if ! command -v jq >/dev/null 2>&1; then
  echo "gpukill-prolog: job $job: jq is not installed; GPUs not checked" >&2
  exit 0
fi

check=$("$gpukill" check --idle --no-rogue \
  --unaccounted-threshold "${GPUKILL_PROLOG_UNACCOUNTED:-256M}" --json 2>/dev/null)
code=$?
if [[ $code == 2 ]]; then
  echo "gpukill-prolog: job $job: gpukill cannot see the GPUs: $(jq -r '.summary? // empty' <<<"$check" 2>/dev/null)" >&2
  exit 0  # unknown is not dirty: do not drain a node for our own blindness
fi

IFS=, read -r -a gpu_list <<<"$gpus"
dirty=()
for gpu in "${gpu_list[@]}"; do
  while IFS= read -r detail; do
    [[ -n "$detail" ]] && dirty+=("GPU $gpu: $detail")
  done < <(jq -r --argjson gpu "$gpu" '.problems[]? | select(.gpu == $gpu) | .detail' \
    <<<"$check" 2>/dev/null)
done

if ((${#dirty[@]} > 0)); then
  reason="gpukill: dirty GPU before job $job: $(IFS='; '; echo "${dirty[*]}")"
  echo "gpukill-prolog: $reason" >&2
  if command -v scontrol >/dev/null 2>&1; then
    scontrol update NodeName="$node" State=DRAIN Reason="$reason" || true
  fi
  exit 1
fi
exit 0
