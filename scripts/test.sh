#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: installs what is missing,
# builds with warnings as errors, runs every test; then builds again with
# AddressSanitizer and UndefinedBehaviorSanitizer and runs the suite once more.
# Tests that need real NVIDIA hardware (ctest label `gpu`) report as skipped
# where none is present.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
jobs=$(nproc)

run_suite() {
  local dir=$1; shift
  cmake -S . -B "$dir" -G Ninja -DGPUKILL_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
  (cd "$dir" && ctest --output-on-failure -j "$jobs" --timeout 120)
}

if [[ "${GPUKILL_FORMAT_CHECK:-1}" == 1 ]]; then
  scripts/check-format.sh
fi
echo "== build and test (RelWithDebInfo, -Werror)"
run_suite build -DCMAKE_BUILD_TYPE=RelWithDebInfo
if [[ "${GPUKILL_SANITIZERS:-1}" == 1 ]]; then
  echo "== build and test (ASan + UBSan)"
  run_suite build-asan -DCMAKE_BUILD_TYPE=Debug -DGPUKILL_SANITIZE=ON -DGPUKILL_BUILD_BENCH=OFF
fi
