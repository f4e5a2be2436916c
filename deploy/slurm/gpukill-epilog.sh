#!/usr/bin/env bash
# Slurm epilog (slurm.conf: Epilog=/etc/slurm/gpukill-epilog.sh; runs as root on the node
# after each job): end the finished job's leftover processes on the GPUs it was given,
# prove the memory came back, and drain the node only when a GPU is still unusable.
#
#   1. every process of the job's cgroup still holding a GPU (--slurm-job), all GPUs in
#      one run: SIGTERM, then SIGKILL after GPUKILL_EPILOG_TIMEOUT seconds, then the
#      memory verified back (gpukill kill --force);
#   2. unless GPUKILL_EPILOG_MATCH_USER=0, every process of the job's user still holding
#      one of the job's GPUs: workers that left the job's cgroup, or a proctrack plugin
#      that does not use cgroups. One gpukill per GPU, all at once, so the wait for
#      processes that ignore SIGTERM is paid once, not once per GPU;
#   3. gpukill check: a job GPU whose memory is used while no process holds it
#      (soft-locked), or a process that survived SIGKILL, drains the node with the reason
#      (scontrol update ... Reason=...) and the epilog exits 1 (Slurm drains on a failed
#      epilog in any case). Anything else exits 0: a clean GPU, or one already idle.
#
# SLURM_JOB_GPUS holds Slurm's numbers for the job's GPUs: the device files' numbers (the
# N of /dev/nvidiaN from gres.conf's File=, or NVML's minor number with AutoDetect=nvml),
# which need not be gpukill's GPU indices (PCI order). They are translated through
# `gpukill list --json` (nvidia_minor; renderD<N> for a DRM GPU's render node).
# Monitoring clients that hold the GPUs' device files without using them (the gpukill
# agent, nvidia-persistenced, DCGM, dcgm-exporter) are observers: never ended, never
# counted.
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

# gpukill's index of each GPU whose device-file number is in the comma-separated list $1,
# one per line in the list's order; "missing:N" for a number no GPU has.
gpu_indices() {
  local listed
  listed=$("$gpukill" list --json 2>/dev/null) || return 1
  jq -r --arg numbers "$1" '
    [.gpus[] | {index,
                number: (.nvidia_minor // ((.drm_render_node // "") | ltrimstr("renderD")
                                           | tonumber? // null))}] as $gpus
    | $numbers | split(",") | map(select(length > 0))[]
    | . as $n
    | ([$gpus[] | select(.number != null and (.number | tostring) == $n) | .index] | first)
    | if . == null then "missing:\($n)" else tostring end' <<<"$listed"
}

# What a `gpukill kill --json` document says: the processes it ended, and one line per
# process that survived SIGKILL.
ended_count() {
  jq -r '[.targets[]? | select(.outcome == "exited" or .outcome == "terminated" or .outcome == "killed")] | length' \
    <<<"$1" 2>/dev/null || echo 0
}
survivors() {
  jq -r --arg who "$2" '.targets[]? | select(.outcome == "survived")
    | "PID \(.pid) (\(.name // "?")) of the \($who) survived SIGKILL on GPU \(.gpus | map(tostring) | join(","))"' \
    <<<"$1" 2>/dev/null
}

# One kill run: logs what it ended, collects survivors in `stuck`.
judge_kill() {  # document exit-code who
  local ended
  ended=$(ended_count "$1")
  if [[ "${ended:-0}" != 0 ]]; then log "ended $ended leftover process(es) of the $3"; fi
  case $2 in
    0 | 7 | 8) ;;  # done; soft-locked and slow memory are judged by the check below
    6) while IFS= read -r line; do [[ -n "$line" ]] && stuck+=("$line"); done < <(survivors "$1" "$3") ;;
    *) log "gpukill kill exited $2: $(jq -r '.error.message? // empty' <<<"$1" 2>/dev/null)" ;;
  esac
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

stuck=()
# 1. The job's own processes, on whatever GPU: one run for all of them.
result=$("$gpukill" kill --slurm-job "$job" --batch --force --timeout-secs "$timeout" --json 2>/dev/null)
judge_kill "$result" $? job

# 2. The job's user on the job's GPUs, every GPU at once.
indices=()
if mapfile -t translated < <(gpu_indices "$gpus") && ((${#translated[@]} > 0)); then
  for entry in "${translated[@]}"; do
    if [[ "$entry" == missing:* ]]; then
      log "no GPU has device number ${entry#missing:} (SLURM_JOB_GPUS=$gpus)"
    else
      indices+=("$entry")
    fi
  done
else
  log "gpukill list failed: the job's GPUs (SLURM_JOB_GPUS=$gpus) cannot be told; only the job's cgroup was cleaned"
fi
if [[ -n "$uid" && "${GPUKILL_EPILOG_MATCH_USER:-1}" == 1 && ${#indices[@]} -gt 0 ]]; then
  workdir=$(mktemp -d) || exit 0
  trap 'rm -rf "$workdir"' EXIT
  for gpu in "${indices[@]}"; do
    ("$gpukill" kill --gpu "$gpu" --user "$uid" --batch --force --timeout-secs "$timeout" \
      --json >"$workdir/$gpu.json" 2>/dev/null
    echo $? >"$workdir/$gpu.code") &
  done
  wait
  for gpu in "${indices[@]}"; do
    judge_kill "$(cat "$workdir/$gpu.json")" "$(cat "$workdir/$gpu.code")" user
  done
fi

# 3. What is left on the job's GPUs.
if ((${#indices[@]} > 0)); then
  check=$("$gpukill" check --no-rogue --no-orphans --json 2>/dev/null)
  wanted=$(printf '%s\n' "${indices[@]}" | jq -s -c 'map(tonumber)')
  while IFS= read -r detail; do
    [[ -n "$detail" ]] && stuck+=("$detail")
  done < <(jq -r --argjson gpus "$wanted" \
    '.problems[]? | select(.kind == "soft_locked" and (.gpu as $g | $gpus | index($g))) | .detail' \
    <<<"$check" 2>/dev/null)
fi

if ((${#stuck[@]} > 0)); then
  reason=""
  for item in "${stuck[@]}"; do reason+="${reason:+; }$item"; done
  drain "$reason"
fi
exit 0
