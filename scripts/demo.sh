#!/usr/bin/env bash
# The main job: install what is missing, build, and run `gpukill list --details`.
# On a host with an NVIDIA driver it lists the real GPUs. Without one it builds a
# SIMULATED host with gpusim, starts a few real workload processes on it (a
# trainer, a job whose parent was killed leaving orphaned DataLoader workers that
# still hold memory, and a driver leak), lists them, and stops what it started.
#
#   scripts/demo.sh                      # gpukill list --details
#   scripts/demo.sh --json               # options are added to `list --details`
#   scripts/demo.sh audit --rogue        # a command runs instead, on the same host
#   scripts/demo.sh kill --gpu 1 --orphaned --batch
#
# GPUKILL_BUILD_DIR chooses the build directory (default: build).
set -euo pipefail
cd "$(dirname "$0")/.."

build=${GPUKILL_BUILD_DIR:-build}
scripts/setup.sh --build
# Only what the demo runs: gpukill, gpusim and the simulated driver. No tests, no
# benchmarks, and none of their packages (scripts/test.sh builds those).
targets=(gpukill gpusim nvidia_ml_sim nvidia_ml_sim_legacy)
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DGPUKILL_BUILD_TESTS=OFF -DGPUKILL_BUILD_BENCH=OFF >/dev/null
fi

# Quietly: the compiler's lines go to a log; a terminal sees one progress line, which is
# cleared before the demo's own output. The first build says first how long it takes.
log="$build/demo-build.log"
cores=$(nproc)
if [[ ! -x "$build/bin/gpukill" || ! -x "$build/bin/gpusim" ]]; then
  steps=""
  if [[ -f "$build/build.ninja" ]]; then
    steps=" ($(ninja -C "$build" -t commands "${targets[@]}" 2>/dev/null | wc -l) steps)"
  fi
  # Measured: 23 CPU-minutes for these targets from nothing (docs/BENCHMARKS.md, "The
  # demo's first build"); a machine busy with other work takes longer.
  minutes=$(((24 + cores - 1) / cores))
  echo "demo: first build of gpukill and gpusim$steps: about $minutes min on $cores idle cores; later runs start at once (log: $log)" >&2
fi
tty=0
[[ -t 2 ]] && tty=1
set +e
cmake --build "$build" -j "$cores" --target "${targets[@]}" 2>&1 | {
  : >"$log"
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$log"
    # Ninja's "[12/328] Building ...", make's "[ 45%] Building ...".
    if ((tty)) && [[ $line =~ ^\[\ *([0-9]+(/[0-9]+|%))\]\ (Building|Linking) ]]; then
      printf '\r\033[Kdemo: building %s' "${BASH_REMATCH[1]}" >&2
    fi
  done
}
built=${PIPESTATUS[0]}
set -e
((tty)) && printf '\r\033[K' >&2
if ((built != 0)); then
  echo "demo: the build failed (exit $built); the end of $log:" >&2
  tail -n 40 "$log" >&2
  exit "$built"
fi

command=(list --details)
if (($# > 0)) && [[ "$1" != -* ]]; then command=(); fi
command+=("$@")

if ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml.so.1' && [[ -z "${GPUKILL_DEMO_SIMULATE:-}" ]]; then
  exec "$build/bin/gpukill" "${command[@]}"
fi

root=$(mktemp -d /tmp/gpukill-demo-XXXXXX)
started=()  # every PID the workloads reported ready: parents and their workers
cleanup() {
  local pid
  for pid in "${started[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  # The workloads are not this shell's children: wait for /proc to let go of each one
  # (bounded) so that nothing is left holding the root when it is removed.
  for pid in "${started[@]}"; do
    for _ in $(seq 200); do [[ -e /proc/$pid ]] || break; sleep 0.01; done
  done
  rm -rf "$root"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$build/bin/gpusim" init --root "$root/host" >/dev/null
# The demo's history and audit records stay with the demo host, not in the real state.
export GPUKILL_STATE_DIR=${GPUKILL_STATE_DIR:-$root/state}
eval "$("$build/bin/gpusim" env --root "$root/host")"

# The workloads run from a copy of gpusim named python, outside any temporary directory,
# so the demo host is what it shows: python jobs (rogue detection judges the executable).
interpreter="$build/demo/python"
mkdir -p "$build/demo"
cp "$build/bin/gpusim" "$interpreter.new" && mv -f "$interpreter.new" "$interpreter"

# `python run --background` prints {"pid":P,...,"workers":[W...]} once the workload is
# ready. start() runs in this shell (never in a command substitution, whose changes to
# `started` would be lost) and leaves the reported PIDs in `ids`.
ids=()
start() {
  local line
  line=$("$interpreter" run --root "$root/host" --background "$@")
  read -r -a ids <<<"$(sed -E 's/.*"pid":([0-9]+).*"workers":\[([0-9,]*)\].*/\1 \2/' <<<"$line" | tr ',' ' ')"
  started+=("${ids[@]}")
}

start --gpu 0 --mem 30G --util 87 --name python
start --gpu 1 --mem 12G --util 40 --workers 2 --name python
parent=${ids[0]}
kill -KILL "$parent"  # the parent dies; its two workers keep the 12 GiB
"$build/bin/gpusim" leak --root "$root/host" --gpu 1 --mem 4G >/dev/null
for _ in $(seq 100); do kill -0 "$parent" 2>/dev/null || break; sleep 0.05; done

cat <<BANNER
================================================================================
 SIMULATED HOST (gpusim) - no NVIDIA driver on this machine.
 Real processes hold simulated GPUs: a trainer on GPU 0; on GPU 1 a job whose
 parent was killed with kill -9, leaving 2 orphaned workers holding 12 GiB,
 plus 4 GiB leaked by the driver.
 Simulated root: $root (removed, with every process started, on exit)
================================================================================
BANNER
"$build/bin/gpukill" "${command[@]}"
