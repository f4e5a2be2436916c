# Sourced by the run_*_bench.sh scripts: builds the given targets in Release (-O3) into
# $GPUKILL_BENCH_BUILD_DIR (default build-bench/), with all output on stderr so that
# stdout carries the report alone. Sets $build.
#
# -Werror is off here on purpose: GCC 12 at -O3 reports false -Wrestrict positives inside
# libstdc++'s string concatenation (GCC bug 105329) in some src/ and sim/ files, which
# would stop a measurement build. Warnings are enforced by the regular builds
# (RelWithDebInfo, GPUKILL_WERROR=ON), which build these benchmarks too.
build=${GPUKILL_BENCH_BUILD_DIR:-build-bench}

release_build() {
    local generator=()
    # A generator can only be chosen when the build directory is first configured.
    if [[ ! -f "$build/CMakeCache.txt" ]] && command -v ninja >/dev/null; then generator=(-G Ninja); fi
    # Tests are not needed here; skipping them keeps the build short on a small machine.
    cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DGPUKILL_BUILD_TESTS=OFF \
        -DGPUKILL_WERROR=OFF >&2
    cmake --build "$build" -j "$(nproc)" --target "$@" >&2
}

# GPUKILL_BENCH_PREBUILT=DIR: the binaries already in DIR/bin (an ASan build, say);
# otherwise a Release build of the given targets. Sets $build either way.
prebuilt_or_release_build() {
    if [[ -n "${GPUKILL_BENCH_PREBUILT:-}" ]]; then
        build=$GPUKILL_BENCH_PREBUILT
    else
        release_build "$@"
    fi
}
