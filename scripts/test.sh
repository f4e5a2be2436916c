#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: installs what is missing,
# checks the formatting, builds once with warnings as errors under AddressSanitizer and
# UndefinedBehaviorSanitizer, and runs every test in that build. Tests that need real
# NVIDIA hardware (ctest label `gpu`) report as skipped where none is present.
#
# One build, not two: the suite runs where the sanitizers can see it, and -Werror
# applies to the same compile. -O0 -g1 (line tables only) is the fastest way to build
# with sanitizers here (O1 costs 1.5-2x the compile time for nothing the tests need);
# benchmarks are not built (CI runs none). Times are in docs/BENCHMARKS.md.
#
#   GPUKILL_RELEASE_PASS=1   also build and test RelWithDebInfo (-O2: the optimiser's
#                            warnings, and the binaries users run) in build/
#   GPUKILL_FORMAT_CHECK=0   skip the clang-format check
#   GPUKILL_SLOW_TESTS=1     also run the tests labelled `slow` (demo_first_run_is_quiet
#                            builds gpukill and gpusim again, optimised, from nothing:
#                            minutes on 2 cores, so not in every run)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
jobs=$(nproc)

run_suite() {
  local dir=$1; shift
  cmake -S . -B "$dir" -G Ninja -DGPUKILL_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
  local exclude=(-LE slow)
  [[ "${GPUKILL_SLOW_TESTS:-0}" == 1 ]] && exclude=()
  (cd "$dir" && ctest --output-on-failure -j "$jobs" --timeout 120 "${exclude[@]}")
}

if [[ "${GPUKILL_FORMAT_CHECK:-1}" == 1 ]]; then
  scripts/check-format.sh
fi
echo "== build and test (-Werror, ASan + UBSan)"
run_suite build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" \
  -DGPUKILL_SANITIZE=ON -DGPUKILL_BUILD_BENCH=OFF -DGPUKILL_UNITY=ON
if [[ "${GPUKILL_RELEASE_PASS:-0}" == 1 ]]; then
  echo "== build and test (RelWithDebInfo, -Werror)"
  run_suite build -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
