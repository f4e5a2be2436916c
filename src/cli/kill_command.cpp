#include "cli/kill_command.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <cstdio>

#include "cli/diagnostics.hpp"
#include "cli/engine_session.hpp"
#include "cli/json_result.hpp"
#include "cli/kill_text.hpp"
#include "engine/kill.hpp"
#include "engine/outcome_codes.hpp"
#include "model/json_text.hpp"
#include "model/quoted_text.hpp"
#include "sys/interrupt.hpp"

namespace gpukill::cli {
namespace {

// Live progress on a terminal only: scripts and --json get none of it.
std::function<void(std::size_t, double)> terminal_progress(bool enabled, bool force) {
    if (!enabled) return {};
    return [force](std::size_t left, double seconds) {
        fmt::print(stderr, "\r\x1b[Kwaiting for {} target{} to exit ({:.1f} s left{})", left,
                   left == 1 ? "" : "s", seconds, force ? ", then SIGKILL" : "");
        std::fflush(stderr);
    };
}

void print_report(const engine::KillOutcome& outcome, bool json, OutputWidth width) {
    // Results on stdout (the JSON document holds the refusals too); what was refused,
    // and why, on stderr.
    if (json) {
        print_json_result(kill_report_json(outcome.report()));
    } else {
        std::fputs(fit_to_width(render_kill_report(outcome.report(), false, width), width).c_str(),
                   stdout);
    }
    std::fflush(stdout);
    std::fputs(render_kill_refusals(outcome.report()).c_str(), stderr);
}

}  // namespace

int run_kill(const GlobalOptions& global, const KillOptions& options, engine::KillRequest request,
             const std::vector<std::string>& argv) {
    request.command = shell_join(argv);
    auto engine = open_engine(global);
    if (!engine) return engine.error();
    const Actor actor = command_line_actor_named(options.actor);
    auto planned = engine::plan_kill(**engine, request, actor);
    if (!planned) return report_error(planned.error());

    // From the plan's record on, Ctrl-C, SIGTERM or SIGHUP stops waiting and escalating
    // but not the records: what was sent is in the audit log before gpukill exits (each
    // signal's intent even before it is sent, for what no handler catches: SIGKILL).
    const InterruptCatcher interrupt;
    engine::KillOutcome outcome = std::move(*planned);
    if (!request.dry_run) {
        const bool show_progress = !options.json && isatty(STDERR_FILENO) == 1;
        outcome = engine::execute_kill(**engine, outcome, actor,
                                       {.progress = terminal_progress(show_progress, request.force),
                                        .interrupted = [] { return InterruptCatcher::caught(); },
                                        .executed =
                                            [show_progress] {
                                                if (show_progress) fmt::print(stderr, "\r\x1b[K");
                                            }});
        if (outcome.interrupted && !outcome.results) {
            return print_error("interrupted before any signal was sent", exit_code::interrupted);
        }
    }
    print_report(outcome, options.json, global.output_width);
    if (outcome.interrupted) {
        print_error("interrupted; the signals sent are in the audit log");
    } else if (outcome.audit_problem) {
        print_error("warning: " + *outcome.audit_problem);
    }
    return outcome.code;
}

}  // namespace gpukill::cli
