#include "engine/audit_queries.hpp"

#include <cerrno>
#include <chrono>
#include <cmath>

#include "audit/action_log_reader.hpp"
#include "audit/audit_log.hpp"
#include "history/usage_store.hpp"
#include "history/usage_summary.hpp"
#include "host/state_dir.hpp"
#include "model/pattern.hpp"

namespace gpukill::engine {
namespace {

struct ActionQuery {
    std::int64_t since_unix_ms = 0;
    std::int64_t until_unix_ms = INT64_MAX;
    std::optional<std::string> user;  // who acted, or whose process was the target
    std::optional<Pattern> process;   // searched in target names
};

struct ActionQueryResult {
    std::string source;      // STATE_DIR/audit.jsonl
    bool available = false;  // false: nothing recorded yet
    audit::ActionLog log;
};

struct UsageQuery {
    std::int64_t since_unix_ms = 0;
    std::int64_t until_unix_ms = INT64_MAX;
    std::optional<std::string> user;  // keep this user's process samples
    std::optional<Pattern> process;   // keep processes whose name or command matches
};

struct UsageQueryResult {
    std::string source;      // STATE_DIR/usage.sqlite3
    bool available = false;  // false: nothing recorded yet (`why_unavailable` says where)
    std::string why_unavailable;
    std::vector<history::GpuSample> gpus;
    std::vector<history::ProcessSample> processes;  // after the user and process filters
    // From every sample, before filtering: a user's processes are credited the host's
    // sampling rhythm, not gaps left where other users' samples were removed.
    history::SampleWeights weights;
};

Result<ActionQueryResult> query_actions(const Engine& engine, const ActionQuery& query);
Result<UsageQueryResult> query_usage(const Engine& engine, const UsageQuery& query);

// The header every audit document carries, for `hours` back from the engine's clock.
Result<AuditScope> scope_of(const Engine& engine, std::string kind, double hours,
                            const std::optional<std::string>& user,
                            const std::optional<std::string>& process,
                            std::optional<Pattern>& compiled) {
    if (user && user->empty()) {
        return fail(ErrorCategory::invalid_input, "the user filter needs a user name or uid");
    }
    if (process) {
        auto pattern = history::compile_process_pattern(*process);
        if (!pattern) return std::unexpected(as(ErrorCategory::invalid_input, pattern.error()));
        compiled = std::move(*pattern);
    }
    AuditScope scope;
    scope.kind = std::move(kind);
    scope.hours = hours;
    scope.until_unix_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(engine.now().time_since_epoch())
            .count();
    scope.since_unix_ms =
        scope.until_unix_ms - static_cast<std::int64_t>(std::llround(hours * 3'600'000.0));
    scope.user = user;
    scope.process = process;
    return scope;
}

// A file that is there but cannot be used (damaged, foreign) is unavailable, whatever
// its reader called it: the request was fine.
Error unreadable(const Error& error) {
    if (error.category == ErrorCategory::permission) return error;
    return as(ErrorCategory::unavailable, error);
}

}  // namespace

nlohmann::ordered_json ActionsOutcome::document() const {
    return actions_json(scope, records, skipped_lines);
}

nlohmann::ordered_json UsageOutcome::document() const {
    return scope.kind == "summary" ? usage_summary_json(scope, weights, summary)
                                   : process_usage_json(scope, weights, processes);
}

Result<ActionsOutcome> audit_actions(const Engine& engine, const ActionsRequest& request) {
    std::optional<Pattern> pattern;
    auto scope = scope_of(engine, "actions", request.hours, request.user, request.process, pattern);
    if (!scope) return std::unexpected(scope.error());
    auto read = query_actions(engine, ActionQuery{.since_unix_ms = scope->since_unix_ms,
                                                  .until_unix_ms = scope->until_unix_ms,
                                                  .user = request.user,
                                                  .process = std::move(pattern)});
    if (!read) return std::unexpected(unreadable(read.error()));
    ActionsOutcome outcome{.scope = std::move(*scope), .records = {}, .skipped_lines = 0};
    outcome.scope.source = read->source;
    outcome.scope.source_available = read->available;
    if (read->available) {
        outcome.records = std::move(read->log.records);
        outcome.skipped_lines = read->log.skipped_lines;
    }
    return outcome;
}

Result<UsageOutcome> audit_usage(const Engine& engine, const UsageRequest& request) {
    std::optional<Pattern> pattern;
    auto scope = scope_of(engine, request.summary ? "summary" : "processes", request.hours,
                          request.user, request.process, pattern);
    if (!scope) return std::unexpected(scope.error());
    auto read = query_usage(engine, UsageQuery{.since_unix_ms = scope->since_unix_ms,
                                               .until_unix_ms = scope->until_unix_ms,
                                               .user = request.user,
                                               .process = std::move(pattern)});
    if (!read) return std::unexpected(unreadable(read.error()));
    UsageOutcome outcome;
    outcome.scope = std::move(*scope);
    outcome.scope.source = read->source;
    outcome.scope.source_available = read->available;
    outcome.weights = read->weights;
    outcome.why_unavailable = read->why_unavailable;
    if (request.summary) {
        outcome.summary = history::summarize_usage(read->gpus, read->processes, read->weights,
                                                   history::local_hour_of_day);
    } else {
        outcome.processes = history::summarize_processes(read->processes, read->weights);
    }
    return outcome;
}

namespace {

Result<ActionQueryResult> query_actions(const Engine& engine, const ActionQuery& query) {
    ActionQueryResult result;
    result.source = state_file_path(engine.config().state_dir, audit::kAuditFileName);
    auto log = audit::read_action_log(result.source,
                                      audit::ActionFilter{.since_unix_ms = query.since_unix_ms,
                                                          .until_unix_ms = query.until_unix_ms,
                                                          .user = query.user,
                                                          .process = query.process});
    if (!log) {
        if (log.error().errno_value != ENOENT) return std::unexpected(log.error());
        return result;
    }
    result.available = true;
    result.log = std::move(*log);
    return result;
}

Result<UsageQueryResult> query_usage(const Engine& engine, const UsageQuery& query) {
    UsageQueryResult result;
    const std::string& state_dir = engine.config().state_dir;
    result.source = state_file_path(state_dir, history::kUsageStoreFileName);
    auto store = history::UsageStore::open_read_only(state_dir);
    if (!store) {
        if (store.error().errno_value != ENOENT) return std::unexpected(store.error());
        result.why_unavailable = store.error().what;
        result.weights = history::sample_weights({}, query.until_unix_ms);
        return result;
    }
    const history::SampleQuery window{.since_unix_ms = query.since_unix_ms,
                                      .until_unix_ms = query.until_unix_ms};
    auto gpus = (*store)->gpu_samples(window);
    if (!gpus) return std::unexpected(gpus.error());
    auto processes = (*store)->process_samples(window);
    if (!processes) return std::unexpected(processes.error());
    result.available = true;
    result.weights =
        history::sample_weights(history::sample_instants(*gpus, *processes), query.until_unix_ms);
    result.processes = history::filter_samples(std::move(*processes), query.user, query.process);
    result.gpus = std::move(*gpus);
    return result;
}

}  // namespace

}  // namespace gpukill::engine
