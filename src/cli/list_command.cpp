#include "cli/list_command.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <cstdio>

#include "cli/diagnostics.hpp"
#include "cli/engine_session.hpp"
#include "cli/json_result.hpp"
#include "cli/snapshot_table.hpp"
#include "cli/watch.hpp"
#include "discovery/discover.hpp"
#include "discovery/gpu_selector.hpp"
#include "engine/outcome_codes.hpp"
#include "engine/process_query.hpp"
#include "model/json_text.hpp"
#include "model/snapshot_json.hpp"

namespace gpukill::cli {
namespace {

// One frame: a snapshot reduced to what the user asked for, rendered. The whole
// snapshot goes to the usage history first, when `history` is given.
int render_frame(engine::Engine& engine, const ListOptions& options, std::optional<Vendor> vendor,
                 OutputWidth width, std::string& text) {
    engine::ListOutcome listed = engine.list({.record_history = true});
    if (listed.history_warning) print_error(*listed.history_warning);
    Snapshot snapshot = std::move(listed.snapshot);
    if (vendor) snapshot = restrict_to_vendor(snapshot, *vendor);
    if (options.gpu) {
        auto index = resolve_gpu_selector(*options.gpu, snapshot.gpus);
        if (!index) {
            print_error(index.error().what);
            return exit_code::invalid_arguments;
        }
        snapshot = restrict_to_gpus(snapshot, {*index});
    }
    if (options.image || options.not_image) {
        reclaim::Selectors selectors;
        selectors.image = options.image;
        selectors.not_image = options.not_image;
        auto selected =
            engine::select_processes(snapshot, engine::ProcessQuery{.selectors = selectors});
        if (!selected) {
            print_error(selected.error().what);
            return exit_code::invalid_arguments;
        }
        snapshot = std::move(*selected);
    }
    if (options.json) {
        // In watch mode one document per line (JSON Lines); otherwise pretty.
        text = json_text(to_json(snapshot), options.watch ? -1 : 2) + "\n";
        mark_json_result_printed();
    } else {
        text = render_snapshot_table(snapshot,
                                     TableOptions{.details = options.details, .width = width});
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
    // The whole host is recorded, whatever --vendor and --gpu show (they restrict after).
    // The engine keeps what discovery needs across watch frames (DRM per-process
    // utilisation is measured between two).
    auto engine = open_engine(global);
    if (!engine) return engine.error();
    if (!options.watch) {
        std::string text;
        int code = render_frame(**engine, options, *vendor, global.output_width, text);
        if (code == exit_code::ok) std::fputs(text.c_str(), stdout);
        return code;
    }
    WatchOptions watch{.interval_seconds = options.interval_seconds,
                       .clear_screen = !options.json && isatty(STDOUT_FILENO) == 1};
    return watch_until_interrupted(watch, [&](std::string& text) {
        return render_frame(**engine, options, *vendor, global.output_width, text);
    });
}

}  // namespace gpukill::cli
