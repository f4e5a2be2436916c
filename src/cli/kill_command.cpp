#include "cli/kill_command.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <cstdio>

#include "audit/envelope.hpp"
#include "cli/diagnostics.hpp"
#include "cli/engine_session.hpp"
#include "cli/json_result.hpp"
#include "cli/kill_text.hpp"
#include "engine/kill.hpp"
#include "engine/outcome_codes.hpp"
#include "host/interrupt.hpp"
#include "model/byte_size.hpp"
#include "model/json_text.hpp"

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

Result<engine::KillRequest> kill_request_of(const KillOptions& options) {
    engine::KillRequest request{.selectors = {},
                                .gpu = options.gpu,
                                .signal = options.signal,
                                .force = options.force,
                                .timeout_seconds = options.timeout_seconds,
                                .verify_timeout_seconds = options.verify_timeout_seconds,
                                .dry_run = options.dry_run,
                                .expected_plan_id = options.plan_id,
                                .command = ""};
    reclaim::Selectors& selectors = request.selectors;
    selectors.pid_arguments = options.pids;
    selectors.filter = options.filter;
    selectors.user = options.user;
    selectors.container = options.container;
    selectors.slurm_job = options.slurm_job;
    selectors.image = options.image;
    selectors.not_image = options.not_image;
    selectors.orphaned = options.orphaned;
    selectors.unlisted = options.unlisted;
    selectors.tree = options.tree;
    selectors.group = options.group;
    selectors.batch = options.batch;
    selectors.any_process = options.any_process;
    if (options.min_memory) {
        auto bytes = parse_byte_size(*options.min_memory);
        if (!bytes) {
            return fail(ErrorCategory::invalid_input, "--min-memory: " + bytes.error().what);
        }
        selectors.min_memory_bytes = *bytes;
    }
    return request;
}

int run_kill(const GlobalOptions& global, const KillOptions& options,
             const std::vector<std::string>& argv) {
    auto built = kill_request_of(options);
    if (!built) return usage_error(built.error().what);
    engine::KillRequest request = std::move(*built);
    request.command = audit::shell_join(argv);

    auto engine = open_engine(global);
    if (!engine) return engine.error();
    const Actor actor = command_line_actor_named(options.actor);
    auto planned = engine::plan_kill(**engine, request, actor);
    if (!planned) return report_error(planned.error());

    // From the plan's record on, Ctrl-C (or SIGTERM) stops waiting and escalating but
    // not the records: what was sent is in the audit log before gpukill exits.
    const InterruptCatcher interrupt;
    engine::KillOutcome outcome = std::move(*planned);
    if (!options.dry_run) {
        const bool show_progress = !options.json && isatty(STDERR_FILENO) == 1;
        outcome = engine::execute_kill(**engine, outcome, actor,
                                       {.progress = terminal_progress(show_progress, options.force),
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
