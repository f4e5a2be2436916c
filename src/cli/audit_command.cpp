// `gpukill audit`: per-process usage from the history (default), --audit-summary,
// --actions (the action log); rogue flags go to run_rogue. Reading only: nothing here
// writes the history or the log.
#include "cli/audit_command.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "cli/audit_actions_view.hpp"
#include "cli/audit_history_view.hpp"
#include "cli/diagnostics.hpp"
#include "cli/engine_session.hpp"
#include "cli/json_result.hpp"
#include "cli/rogue_command.hpp"
#include "engine/audit_queries.hpp"
#include "engine/outcome_codes.hpp"
#include "history/usage_summary.hpp"
#include "model/json_text.hpp"

namespace gpukill::cli {
namespace {

// A century of hours: more is a typo, and the window's start would underflow.
constexpr double kMaxAuditHours = 24.0 * 36'500;

// Permission problems get their own exit code, as everywhere in gpukill.
int error_code_for(const Error& error) {
    return error.errno_value == EACCES || error.errno_value == EPERM ? exit_code::permission_denied
                                                                     : exit_code::failure;
}

std::int64_t now_unix_ms() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

void print_json(const nlohmann::ordered_json& doc) {
    print_json_result(doc);
}

void print_text(const std::string& text, OutputWidth width = std::nullopt) {
    std::fputs(fit_to_width(text, width).c_str(), stdout);
}

// Renders the history views from samples (empty ones when there is no history yet).
void render_history(const AuditOptions& options, const AuditScope& scope, OutputWidth width,
                    const std::vector<history::GpuSample>& gpus,
                    const std::vector<history::ProcessSample>& processes,
                    const history::SampleWeights& weights) {
    if (options.summary) {
        const history::UsageSummary summary =
            history::summarize_usage(gpus, processes, weights, history::local_hour_of_day);
        if (options.json) {
            print_json(usage_summary_json(scope, weights, summary));
        } else {
            print_text(usage_summary_table(scope, weights, summary, width), width);
        }
        return;
    }
    const auto usage = history::summarize_processes(processes, weights);
    if (options.json) {
        print_json(process_usage_json(scope, weights, usage));
    } else {
        print_text(process_usage_table(scope, weights, usage, width), width);
    }
}

int run_history(const GlobalOptions& global, const AuditOptions& options, AuditScope scope,
                const std::optional<Pattern>& pattern) {
    scope.kind = options.summary ? "summary" : "processes";
    auto engine = open_engine(global, false);
    if (!engine) return engine.error();
    auto usage =
        engine::query_usage(**engine, engine::UsageQuery{.since_unix_ms = scope.since_unix_ms,
                                                         .until_unix_ms = scope.until_unix_ms,
                                                         .user = options.user,
                                                         .process = pattern});
    if (!usage) return print_error(usage.error().what, error_code_for(usage.error()));
    scope.source = usage->source;
    if (!usage->available) {
        // Nothing recorded yet is an answer, not a failure: say where history will be.
        scope.source_available = false;
        if (options.json) {
            render_history(options, scope, global.output_width, {}, {}, usage->weights);
        } else {
            print_text(usage->why_unavailable + "\n", global.output_width);
        }
        return exit_code::ok;
    }
    render_history(options, scope, global.output_width, usage->gpus, usage->processes,
                   usage->weights);
    return exit_code::ok;
}

int run_actions(const GlobalOptions& global, const AuditOptions& options, AuditScope scope,
                const std::optional<Pattern>& pattern) {
    scope.kind = "actions";
    auto engine = open_engine(global, false);
    if (!engine) return engine.error();
    auto actions =
        engine::query_actions(**engine, engine::ActionQuery{.since_unix_ms = scope.since_unix_ms,
                                                            .until_unix_ms = scope.until_unix_ms,
                                                            .user = options.user,
                                                            .process = pattern});
    if (!actions) return print_error(actions.error().what, error_code_for(actions.error()));
    scope.source = actions->source;
    if (!actions->available) {
        scope.source_available = false;
        if (options.json) {
            print_json(actions_json(scope, {}));
        } else {
            print_text(fmt::format("No actions recorded at {} yet; gpukill kill and reset "
                                   "record theirs there.\n",
                                   scope.source),
                       global.output_width);
        }
        return exit_code::ok;
    }
    if (options.json) {
        print_json(actions_json(scope, actions->log));
    } else {
        print_text(actions_table(scope, actions->log, global.output_width), global.output_width);
    }
    return exit_code::ok;
}

}  // namespace

int run_audit(const GlobalOptions& global, const AuditOptions& options,
              const std::vector<std::string>& argv) {
    if (wants_rogue(options)) return run_rogue(global, options, argv);
    if (!(std::isfinite(options.hours) && options.hours > 0 && options.hours <= kMaxAuditHours)) {
        return print_error(
            fmt::format("--audit-hours must be more than 0 and at most {:.0f}", kMaxAuditHours),
            exit_code::invalid_arguments);
    }
    if (options.summary && options.actions) {
        return print_error("--audit-summary and --actions are separate views; choose one",
                           exit_code::invalid_arguments);
    }
    if (options.user && options.user->empty()) {
        return print_error("--audit-user needs a user name or uid", exit_code::invalid_arguments);
    }
    std::optional<Pattern> pattern;
    if (options.process) {
        auto compiled = history::compile_process_pattern(*options.process);
        if (!compiled) return print_error(compiled.error().what, exit_code::invalid_arguments);
        pattern = std::move(*compiled);
    }
    AuditScope scope;
    scope.hours = options.hours;
    scope.until_unix_ms = now_unix_ms();
    scope.since_unix_ms =
        scope.until_unix_ms - static_cast<std::int64_t>(std::llround(options.hours * 3'600'000.0));
    scope.user = options.user;
    scope.process = options.process;
    if (options.actions) return run_actions(global, options, scope, pattern);
    return run_history(global, options, scope, pattern);
}

}  // namespace gpukill::cli
