#include "cli/list_command.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <cstdio>

#include "cli/diagnostics.hpp"
#include "cli/engine_session.hpp"
#include "cli/json_result.hpp"
#include "cli/snapshot_table.hpp"
#include "cli/text_wrap.hpp"
#include "cli/watch.hpp"
#include "engine/list.hpp"
#include "engine/outcome_codes.hpp"
#include "model/json_text.hpp"

namespace gpukill::cli {
namespace {

// What a watch frame cost to find the holders: kept from kernel events (and how often
// the kernel dropped some on a busy node), or a sweep of every process each frame.
std::string tracking_status(const engine::Engine::HolderTracking& tracking) {
    if (!tracking.tracking) return "holders: every frame sweeps /proc (" + tracking.why_not + ")";
    return fmt::format(
        "holders: tracked from kernel events; events lost on {} frame{} ({} repaired by a "
        "rescan), {} full sweep{}",
        tracking.overflows, tracking.overflows == 1 ? "" : "s", tracking.repairs,
        tracking.full_sweeps, tracking.full_sweeps == 1 ? "" : "s");
}

nlohmann::ordered_json tracking_json(const engine::Engine::HolderTracking& tracking) {
    nlohmann::ordered_json doc{{"tracking", tracking.tracking}};
    if (!tracking.tracking) {
        doc["why_not"] = tracking.why_not;
        return doc;
    }
    doc["event_overflows"] = tracking.overflows;
    doc["repairs"] = tracking.repairs;
    doc["full_sweeps"] = tracking.full_sweeps;
    doc["events_filtered"] = tracking.events_filtered;
    doc["receive_buffer_bytes"] = tracking.receive_buffer_bytes;
    return doc;
}

// One listing rendered: the JSON document (in watch mode one a line: JSON Lines), or the
// table, with a last line when the host's agent answered rather than this process. A
// watch frame (`tracking` given) also says how its holders were found.
int render_outcome(const engine::ListOutcome& listed, const ListOptions& options, OutputWidth width,
                   const std::optional<engine::Engine::HolderTracking>& tracking,
                   std::string& text) {
    if (listed.history_warning) print_error(*listed.history_warning);
    if (options.json) {
        nlohmann::ordered_json doc = engine::list_document(listed);
        if (tracking) doc["holder_tracking"] = tracking_json(*tracking);
        text = json_text(doc, options.watch ? -1 : 2) + "\n";
        mark_json_result_printed();
        return exit_code::ok;
    }
    text = render_snapshot_table(listed.snapshot,
                                 TableOptions{.details = options.details, .width = width});
    if (tracking) text += tracking_status(*tracking) + "\n";
    if (listed.source == engine::ListSource::agent) {
        text += fit_to_width(fmt::format("Answered by the local gpukill agent (PID {}); "
                                         "--no-agent reads /proc here.\n",
                                         listed.agent_pid),
                             width);
    }
    return exit_code::ok;
}

}  // namespace

int run_list(const GlobalOptions& global, const ListOptions& options, engine::ListRequest request) {
    if (options.watch && !(options.interval_seconds >= 0.1 && options.interval_seconds <= 86400)) {
        print_error("--interval must be between 0.1 and 86400 seconds");
        return exit_code::invalid_arguments;
    }
    // Every backend, whatever --vendor says: GPU indexes are the host's (ordered by PCI
    // address across vendors), so a narrowed listing must see all GPUs to number them;
    // the whole host is recorded. The engine keeps what discovery needs across watch
    // frames (DRM per-process utilisation is measured between two).
    request.record_history = true;
    if (!options.watch) {
        // One listing: the host's agent answers when it can (it tracks holders from
        // kernel events, where this process would sweep every one), else this process
        // opens the engine and sweeps.
        auto listed = engine::list_once(
            engine_config(global), request,
            options.no_agent ? engine::AgentUse::never : engine::AgentUse::ask_first);
        if (!listed) return report_error(listed.error());
        if (listed->agent_note) {
            print_error(*listed->agent_note + "; read /proc here instead");
        }
        std::string text;
        int code = render_outcome(*listed, options, global.output_width, std::nullopt, text);
        if (code == exit_code::ok) std::fputs(text.c_str(), stdout);
        return code;
    }
    // Every frame sweeps with this process's own engine: its holder tracker makes the
    // frames after the first cheap without the agent.
    auto engine = open_engine(global);
    if (!engine) return engine.error();
    WatchOptions watch{.interval_seconds = options.interval_seconds,
                       .clear_screen = !options.json && isatty(STDOUT_FILENO) == 1};
    return watch_until_interrupted(watch, [&](std::string& text) {
        auto listed = engine::list(**engine, request);
        if (!listed) return report_error(listed.error());
        return render_outcome(*listed, options, global.output_width, (*engine)->holder_tracking(),
                              text);
    });
}

}  // namespace gpukill::cli
