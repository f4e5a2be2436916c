#!/usr/bin/env bash
# Slurm prolog (slurm.conf: Prolog=/etc/slurm/gpukill-prolog.sh; runs as root on the node
# before a job starts): refuse to start the job on a dirty GPU. A GPU in SLURM_JOB_GPUS
# that any process uses, whose memory is used while nobody holds it (soft-locked), or
# that went missing makes the prolog exit 1: Slurm then requeues the job and drains the
# node, with the reason set here (scontrol update ... Reason=...). Read-only: nothing is
# signalled (the epilog cleans up; see gpukill-epilog.sh).
#
# Monitoring clients that hold the GPUs' device files without using them (the gpukill
# agent, nvidia-persistenced, DCGM, dcgm-exporter, the device plugin) are observers, not
# users: a node running them and no job is clean. When gpukill cannot see enough to judge
# (check exits 2: no driver library, not the host's PID namespace), the job starts: a node
# is not drained for gpukill's own blindness.
#
# SLURM_JOB_GPUS holds Slurm's numbers for the job's GPUs: the device files' numbers (the
# N of /dev/nvidiaN), not gpukill's indices (PCI order); they are translated through
# `gpukill list --json` (nvidia_minor; renderD<N> for a DRM GPU's render node).
#
# Needs gpukill and jq. Environment: GPUKILL (path), GPUKILL_PROLOG_UNACCOUNTED (memory
# nobody accounts for that makes a GPU dirty, default 256M).
set -uo pipefail

gpukill=${GPUKILL:-gpukill}
job=${SLURM_JOB_ID:-?}
gpus=${SLURM_JOB_GPUS:-}
node=${SLURMD_NODENAME:-$(hostname -s)}

log() { echo "gpukill-prolog: job $job: $*" >&2; }

# As in gpukill-epilog.sh: gpukill's index of each GPU whose device-file number is in $1,
# one per line; "missing:N" for a number no GPU has.
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

[[ -z "$gpus" ]] && exit 0
if ! command -v jq >/dev/null 2>&1; then
  log "jq is not installed; GPUs not checked"
  exit 0
fi

check=$("$gpukill" check --idle --no-rogue \
  --unaccounted-threshold "${GPUKILL_PROLOG_UNACCOUNTED:-256M}" --json 2>/dev/null)
code=$?
if [[ $code == 2 ]]; then
  log "gpukill cannot see the GPUs: $(jq -r '.summary? // empty' <<<"$check" 2>/dev/null)"
  exit 0  # unknown is not dirty: do not drain a node for our own blindness
fi

dirty=()
indices=()
if ! mapfile -t translated < <(gpu_indices "$gpus") || ((${#translated[@]} == 0)); then
  log "gpukill list failed: the job's GPUs (SLURM_JOB_GPUS=$gpus) cannot be told; not checked"
  exit 0
fi
for entry in "${translated[@]}"; do
  if [[ "$entry" == missing:* ]]; then
    dirty+=("no GPU has device number ${entry#missing:} (lost, or not seen by the driver)")
  else
    indices+=("$entry")
  fi
done

if ((${#indices[@]} > 0)); then
  wanted=$(printf '%s\n' "${indices[@]}" | jq -s -c 'map(tonumber)')
  while IFS= read -r detail; do
    [[ -n "$detail" ]] && dirty+=("$detail")
  done < <(jq -r --argjson gpus "$wanted" \
    '.problems[]? | select(.gpu as $g | $gpus | index($g)) | .detail' <<<"$check" 2>/dev/null)
fi

if ((${#dirty[@]} > 0)); then
  reason=""
  for item in "${dirty[@]}"; do reason+="${reason:+; }$item"; done
  reason="gpukill: dirty GPU before job $job: $reason"
  log "$reason"
  if command -v scontrol >/dev/null 2>&1; then
    scontrol update NodeName="$node" State=DRAIN Reason="$reason" || true
  fi
  exit 1
fi
exit 0
