#include "cli/list_command.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <cstdio>

#include "backends/registry.hpp"
#include "cli/diagnostics.hpp"
#include "cli/exit_codes.hpp"
#include "cli/history_recorder.hpp"
#include "cli/snapshot_table.hpp"
#include "cli/watch.hpp"
#include "discovery/discover.hpp"
#include "discovery/gpu_selector.hpp"
#include "model/json_text.hpp"
#include "model/snapshot_json.hpp"

namespace gpukill::cli {
namespace {

// One frame: a snapshot reduced to what the user asked for, rendered. The whole
// snapshot goes to the usage history first, when `history` is given.
int render_frame(const GlobalOptions& global, const ListOptions& options,
                 const std::vector<std::unique_ptr<Backend>>& backends,
                 std::optional<Vendor> vendor, HistoryRecorder* history, DiscoveryState& discovery,
                 std::string& text) {
    Snapshot snapshot = discover(global.roots, backends, &discovery);
    if (history) history->record(snapshot);
    if (vendor) snapshot = restrict_to_vendor(snapshot, *vendor);
    if (options.gpu) {
        auto index = resolve_gpu_selector(*options.gpu, snapshot.gpus);
        if (!index) {
            print_error(index.error().what);
            return exit_code::invalid_arguments;
        }
        snapshot = restrict_to_gpus(snapshot, {*index});
    }
    if (options.json) {
        // In watch mode one document per line (JSON Lines); otherwise pretty.
        text = json_text(to_json(snapshot), options.watch ? -1 : 2) + "\n";
    } else {
        text = render_snapshot_table(snapshot, TableOptions{.details = options.details});
    }
    return exit_code::ok;
}

}  // namespace

int run_list(const GlobalOptions& global, const ListOptions& options) {
    auto vendor = parse_vendor_filter(options.vendor);
    if (!vendor) {
        print_error(vendor.error().what);
        return exit_code::invalid_arguments;
    }
    if (options.watch && !(options.interval_seconds >= 0.1 && options.interval_seconds <= 86400)) {
        print_error("--interval must be between 0.1 and 86400 seconds");
        return exit_code::invalid_arguments;
    }
    // Every backend, whatever --vendor says: GPU indexes are the host's (ordered by PCI
    // address across vendors), so a filtered listing must see all GPUs to number them.
    auto backends = open_backends(backend_config(global), std::nullopt);
    if (auto failure = requested_backend_failure(backends)) {
        print_error(*failure);
        return exit_code::failure;
    }
    // The whole host is recorded, whatever --vendor and --gpu show (they restrict after).
    HistoryRecorder recorder(global);
    HistoryRecorder* history = &recorder;
    // Kept across watch frames: DRM per-process utilisation is measured between two.
    DiscoveryState discovery;
    if (!options.watch) {
        std::string text;
        int code = render_frame(global, options, backends, *vendor, history, discovery, text);
        if (code == exit_code::ok) std::fputs(text.c_str(), stdout);
        return code;
    }
    WatchOptions watch{.interval_seconds = options.interval_seconds,
                       .clear_screen = !options.json && isatty(STDOUT_FILENO) == 1};
    return watch_until_interrupted(watch, [&](std::string& text) {
        return render_frame(global, options, backends, *vendor, history, discovery, text);
    });
}

}  // namespace gpukill::cli
