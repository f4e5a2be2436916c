#!/usr/bin/env bash
# Builds every layer probe (tests/layers/CMakeLists.txt) in one run and checks the result:
# a probe expected to fail must have failed, on its #include ("No such file"); a probe
# expected to compile must have compiled.
# Usage: boundary_test.sh BUILD_DIR "TARGET;TARGET..." EXPECTED:HEADER:OBJECT...
set -uo pipefail
build_dir=$1
IFS=';' read -r -a targets <<<"$2"
shift 2
expectations=("$@")

for expectation in "${expectations[@]}"; do
    rm -f "${expectation#*:*:}"  # a stale object from an earlier run proves nothing
done
log=$(cmake --build "$build_dir" --target "${targets[@]}" -- -k 0 2>&1)

failures=0
for expectation in "${expectations[@]}"; do
    expected=${expectation%%:*}
    rest=${expectation#*:}
    header=${rest%%:*}
    object=${rest#*:}
    probe=$(basename "$(dirname "$(dirname "$object")")" .dir)
    if [[ $expected == compiles ]]; then
        if [[ ! -f $object ]]; then
            echo "FAIL: $probe: $header should compile and did not"
            failures=$((failures + 1))
        fi
    else
        if [[ -f $object ]]; then
            echo "FAIL: $probe: $header compiled; this interface reaches a layer below the engine"
            failures=$((failures + 1))
        elif ! grep -q "$probe.cpp.*fatal error: $header: No such file or directory" <<<"$log"; then
            echo "FAIL: $probe: did not compile, but not because $header is out of reach"
            failures=$((failures + 1))
        fi
    fi
done
if ((failures > 0)); then
    echo "--- build output"
    echo "$log" | grep -E "error|FAILED" | head -40
    exit 1
fi
echo "ok: ${#expectations[@]} probes, every interface confined to the engine's API"
