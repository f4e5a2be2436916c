#include "cli/top_command.hpp"

#include <unistd.h>

#include "cli/diagnostics.hpp"
#include "cli/engine_session.hpp"
#include "engine/list.hpp"
#include "engine/outcome_codes.hpp"
#include "top/monitor.hpp"

namespace gpukill::cli {

int run_top_command(const GlobalOptions& global, const TopCommandOptions& options,
                    const ListOptions& list, const engine::ListRequest& request) {
    if (!(list.interval_seconds >= top::kMinIntervalSeconds &&
          list.interval_seconds <= top::kMaxIntervalSeconds)) {
        return usage_error("--interval must be between 0.1 and 86400 seconds");
    }
    // Not a terminal: nothing to drive a screen on, so the rows a script can read.
    if (isatty(STDOUT_FILENO) != 1 || isatty(STDIN_FILENO) != 1) {
        ListOptions watch = list;
        watch.watch = true;
        watch.details = true;
        return run_list(global, watch, request);
    }
    auto engine = open_engine(global);
    if (!engine) return engine.error();
    top::TopOptions top_options{.interval_seconds = list.interval_seconds,
                                .readonly = options.readonly,
                                .gpu = std::nullopt};
    if (request.gpu) {
        auto index = engine::resolve_gpu((*engine)->gpus(), *request.gpu);
        if (!index) return usage_error(index.error().what);
        top_options.gpu = *index;
    }
    auto ran = top::run_top(**engine, top_options, command_line_actor(Interface::top));
    if (!ran) return report_error(ran.error());
    return exit_code::ok;
}

}  // namespace gpukill::cli
