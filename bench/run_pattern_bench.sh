#!/usr/bin/env bash
# Builds the pattern benchmark and gpukill (Release) and runs it: the engine before RE2
# and after, side by side on a 3,000-process host's command lines (arguments are passed
# to gpukill_pattern_bench: --processes, --rounds, --compiles). Then the size of
# gpukill, and with --baseline-build DIR (a Release build of the tree before a change,
# as for bench/run_startup_bench.sh --baseline) of that build's gpukill beside it:
#   bench/run_pattern_bench.sh --baseline-build /tmp/before
# The results are recorded in docs/BENCHMARKS.md ("Patterns through RE2").
set -euo pipefail
cd "$(dirname "$0")/.."

baseline=""
arguments=()
while (($# > 0)); do
    case "$1" in
        --baseline-build) baseline=${2:?--baseline-build needs a build directory}; shift 2 ;;
        *) arguments+=("$1"); shift ;;
    esac
done
if [[ -n "$baseline" && ! -x "$baseline/bin/gpukill" ]]; then
    echo "run_pattern_bench.sh: no $baseline/bin/gpukill" >&2
    exit 3
fi

source bench/build_release.sh
release_build gpukill gpukill_pattern_bench
"$build/bin/gpukill_pattern_bench" "${arguments[@]}"

# One row: the file, what is loaded of it (text + data), stripped, and what it needs.
size_row() {
    local label=$1 binary=$2 stripped text data
    stripped=$(mktemp)
    strip --strip-all -o "$stripped" "$binary"
    read -r text data _ < <(size "$binary" | tail -n 1)
    printf '| %s | %s | %s | %s | %s |\n' "$label" "$(stat -c %s "$binary")" \
        "$((text + data))" "$(stat -c %s "$stripped")" \
        "$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | paste -sd ' ')"
    rm -f "$stripped"
}
echo
echo "| gpukill (Release) | file bytes | text + data bytes | stripped bytes | NEEDED |"
echo "|---|---:|---:|---:|---|"
size_row "this tree" "$build/bin/gpukill"
[[ -z "$baseline" ]] || size_row "$baseline" "$baseline/bin/gpukill"
re2=$(ldd "$build/bin/gpukill" | sed -n 's/.*libre2[^ ]* => \([^ ]*\).*/\1/p')
[[ -z "$re2" ]] || echo "(loaded beside it: $(readlink -f "$re2"), $(stat -L -c %s "$re2") bytes)"
