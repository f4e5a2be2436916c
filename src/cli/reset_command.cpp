// `gpukill reset`: the engine's reset (engine/reset.hpp) with its report printed.
#include "cli/reset_command.hpp"
#include "model/quoted_text.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "cli/diagnostics.hpp"
#include "cli/engine_session.hpp"
#include "cli/json_result.hpp"
#include "cli/reset_text.hpp"
#include "engine/reset.hpp"
#include "model/json_text.hpp"
#include "sys/interrupt.hpp"

namespace gpukill::cli {

int run_reset(const GlobalOptions& global, const ResetOptions& options,
              engine::ResetRequest request, const std::vector<std::string>& argv) {
    auto engine = open_engine(global);
    if (!engine) return engine.error();
    request.nvidia_smi = options.nvidia_smi;
    request.command = shell_join(argv);
    const InterruptCatcher interrupt;
    auto outcome = engine::reset(
        **engine, request, command_line_actor_named(options.actor),
        {.progress = {}, .interrupted = [] { return InterruptCatcher::caught(); }, .executed = {}});
    if (!outcome) return report_error(outcome.error());
    if (options.json) {
        print_json_result(reset_report_json(outcome->report()));
    } else {
        std::fputs(fit_to_width(render_reset_report(outcome->report(), global.output_width),
                                global.output_width)
                       .c_str(),
                   stdout);
    }
    std::fflush(stdout);
    if (outcome->audit_problem) print_error("warning: " + *outcome->audit_problem);
    return outcome->code;
}

}  // namespace gpukill::cli
