// `gpukill audit`: per-process usage from the history (default), --audit-summary,
// --actions (the action log); rogue flags go to run_rogue. Reading only: nothing here
// writes the history or the log.
#include "cli/audit_command.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "cli/audit_actions_view.hpp"
#include "cli/audit_history_view.hpp"
#include "cli/diagnostics.hpp"
#include "cli/engine_session.hpp"
#include "cli/json_result.hpp"
#include "cli/rogue_command.hpp"
#include "engine/audit_queries.hpp"
#include "engine/outcome_codes.hpp"

namespace gpukill::cli {
namespace {

void print_text(const std::string& text, OutputWidth width = std::nullopt) {
    std::fputs(fit_to_width(text, width).c_str(), stdout);
}

int run_usage(const GlobalOptions& global, const AuditOptions& options,
              const engine::UsageRequest& request) {
    auto engine = open_engine(global, false);
    if (!engine) return engine.error();
    auto usage = engine::audit_usage(**engine, request);
    if (!usage) return report_error(usage.error());
    if (options.json) {
        print_json_result(usage->document());
    } else if (!usage->scope.source_available) {
        // Nothing recorded yet is an answer, not a failure: say where history will be.
        print_text(usage->why_unavailable + "\n", global.output_width);
    } else if (request.summary) {
        print_text(
            usage_summary_table(usage->scope, usage->weights, usage->summary, global.output_width),
            global.output_width);
    } else {
        print_text(process_usage_table(usage->scope, usage->weights, usage->processes,
                                       global.output_width),
                   global.output_width);
    }
    return exit_code::ok;
}

int run_actions(const GlobalOptions& global, const AuditOptions& options,
                const engine::ActionsRequest& request) {
    auto engine = open_engine(global, false);
    if (!engine) return engine.error();
    auto actions = engine::audit_actions(**engine, request);
    if (!actions) return report_error(actions.error());
    if (options.json) {
        print_json_result(actions->document());
    } else if (!actions->scope.source_available) {
        print_text(fmt::format("No actions recorded at {} yet; gpukill kill and reset "
                               "record theirs there.\n",
                               actions->scope.source),
                   global.output_width);
    } else {
        print_text(actions_table(*actions, global.output_width), global.output_width);
    }
    return exit_code::ok;
}

}  // namespace

int run_audit(const GlobalOptions& global, const AuditOptions& options,
              const RequestOptions& requests, const std::vector<std::string>& argv) {
    if (wants_rogue(options)) return run_rogue(global, options, requests, argv);
    if (options.actions) {
        if (requests.given("--audit-summary")) {
            return usage_error("--audit-summary and --actions are separate views; choose one");
        }
        auto request = requests.request<engine::ActionsRequest>();
        if (!request) return usage_error(request.error().what);
        return run_actions(global, options, *request);
    }
    auto request = requests.request<engine::UsageRequest>();
    if (!request) return usage_error(request.error().what);
    return run_usage(global, options, *request);
}

}  // namespace gpukill::cli
