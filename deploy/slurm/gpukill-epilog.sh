#!/usr/bin/env bash
# Slurm epilog (slurm.conf: Epilog=/etc/slurm/gpukill-epilog.sh; runs as root on the node
# after each job): end the finished job's leftover processes on the GPUs it was given,
# prove the memory came back, and drain the node only when a GPU is still unusable.
#
#   1. on each GPU in SLURM_JOB_GPUS: every process of the job's cgroup (--slurm-job),
#      then (unless GPUKILL_EPILOG_MATCH_USER=0) every process of the job's user still
#      holding that GPU: workers that left the job's cgroup, or a proctrack plugin that
#      does not use cgroups. SIGTERM, then SIGKILL after GPUKILL_EPILOG_TIMEOUT seconds,
#      then the memory is verified back (gpukill kill --force);
#   2. gpukill check on those GPUs: a GPU whose memory is used while no process holds it
#      (soft-locked), or a target that survived SIGKILL, drains the node with the reason
#      (scontrol update ... Reason=...) and the epilog exits 1 (Slurm drains on a failed
#      epilog in any case). Anything else exits 0: a clean GPU, or one already idle.
#
# Every action is in gpukill's audit log (actor: the epilog's user, command: this run).
# Needs gpukill and jq. Environment: GPUKILL (path, default gpukill on PATH),
# GPUKILL_EPILOG_TIMEOUT (seconds, default 10), GPUKILL_EPILOG_MATCH_USER (1/0).
set -uo pipefail

gpukill=${GPUKILL:-gpukill}
timeout=${GPUKILL_EPILOG_TIMEOUT:-10}
job=${SLURM_JOB_ID:-}
gpus=${SLURM_JOB_GPUS:-}
uid=${SLURM_JOB_UID:-}
node=${SLURMD_NODENAME:-$(hostname -s)}

log() { echo "gpukill-epilog: job ${job:-?}: $*" >&2; }

drain() {
  local reason="gpukill: $1"
  log "draining $node: $reason"
  if command -v scontrol >/dev/null 2>&1; then
    scontrol update NodeName="$node" State=DRAIN Reason="$reason" || log "scontrol update failed"
  fi
  exit 1
}

if [[ -z "$job" ]]; then
  log "SLURM_JOB_ID is not set: not run by slurmd; nothing done"
  exit 0
fi
if [[ -z "$gpus" ]]; then
  exit 0  # the job had no GPUs
fi
if ! command -v jq >/dev/null 2>&1; then
  log "jq is not installed; nothing done"
  exit 0
fi

IFS=, read -r -a gpu_list <<<"$gpus"
stuck=()
for gpu in "${gpu_list[@]}"; do
  selectors=(--slurm-job "$job")
  passes=("job")
  if [[ -n "$uid" && "${GPUKILL_EPILOG_MATCH_USER:-1}" == 1 ]]; then passes+=("user"); fi
  for pass in "${passes[@]}"; do
    if [[ "$pass" == user ]]; then selectors=(--user "$uid"); fi
    result=$("$gpukill" kill --gpu "$gpu" "${selectors[@]}" --batch --force \
      --timeout-secs "$timeout" --json 2>/dev/null)
    code=$?
    ended=$(jq -r '[.targets[]? | select(.outcome == "exited" or .outcome == "terminated" or .outcome == "killed")] | length' \
      <<<"$result" 2>/dev/null || echo 0)
    if [[ "${ended:-0}" != 0 ]]; then log "GPU $gpu: ended $ended leftover process(es) of the $pass"; fi
    case $code in
      0 | 7 | 8) ;;  # done; soft-locked and slow memory are judged by the check below
      6) stuck+=("GPU $gpu: a leftover process of the $pass survived SIGKILL") ;;
      *) log "GPU $gpu: gpukill kill exited $code: $(jq -r '.error.message? // empty' <<<"$result" 2>/dev/null)" ;;
    esac
  done
done

check=$("$gpukill" check --no-rogue --no-orphans --json 2>/dev/null)
for gpu in "${gpu_list[@]}"; do
  while IFS= read -r detail; do
    [[ -n "$detail" ]] && stuck+=("GPU $gpu: $detail")
  done < <(jq -r --argjson gpu "$gpu" \
    '.problems[]? | select(.kind == "soft_locked" and .gpu == $gpu) | .detail' <<<"$check" 2>/dev/null)
done

if ((${#stuck[@]} > 0)); then
  drain "$(IFS='; '; echo "${stuck[*]}")"
fi
exit 0
