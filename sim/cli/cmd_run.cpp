// gpusim run --root DIR --gpu N --mem SIZE [--util PCT] [--workers K] [--mapping-only]
//            [--ignore-term] [--term-delay SECS] [--name NAME] [--background]
// gpusim run --root DIR --drm N [--kfd-only] [--kfd-vram SIZE] [--workers K] [--mapping-only]
//            [--ignore-term] [--term-delay SECS] [--name NAME] [--background]

#include "cli/commands.hpp"
#include "cli/connections.hpp"
#include "cli/process_name.hpp"
#include "cli/workload.hpp"
#include "state/files.hpp"
#include "state/size.hpp"

namespace gpusim {

int cmd_run(const RunOptions& options, char** argv) {
    // A DRM GPU's memory and utilisation per process live in fdinfo, which only the kernel
    // writes: a --drm workload holds the device and nothing more (docs/SIMULATOR.md).
    if (options.drm && options.util_percent != 0) {
        return report(Error{kExitUsage, "--util does not apply to --drm (no simulated fdinfo)"});
    }
    std::uint64_t bytes = 0;
    if (!options.drm) {
        auto parsed = parse_size(options.memory);
        if (!parsed) return report(parsed.error());
        bytes = *parsed;
    }
    std::optional<std::uint64_t> kfd_vram_bytes;
    if (options.kfd_vram) {
        auto parsed = parse_size(*options.kfd_vram);
        if (!parsed) return report(parsed.error());
        kfd_vram_bytes = *parsed;
    }
    if (options.name && options.name->empty()) {
        return report(Error{kExitUsage, "--name must not be empty"});
    }
    if (options.name) {
        if (auto named = take_name(*options.name, argv); !named) return report(named.error());
    }

    // Before detaching, so a refused connection is reported like any other set-up error.
    if (auto held = hold_connections(options.connect); !held) return report(held.error());

    ReadyChannel channel = ReadyChannel::foreground();
    if (options.background) {
        bool is_child = false;
        const int code = detach_workload(&channel, &is_child);
        if (!is_child || code != kExitOk) return code;
    }

    const WorkloadSpec spec{.root = root_at(options.root),
                            .gpu = options.gpu,
                            .drm_gpu = options.drm,
                            .kfd_only = options.kfd_only,
                            .kfd_vram_bytes = kfd_vram_bytes,
                            .bytes = bytes,
                            .util_percent = options.util_percent,
                            .workers = options.workers,
                            .mapping_only = options.mapping_only,
                            .ignore_term = options.ignore_term,
                            .term_delay_seconds = options.term_delay_seconds};
    return run_workload(spec, channel);
}

}  // namespace gpusim
