#include "engine/audit_queries.hpp"

#include <cerrno>

#include "audit/audit_log.hpp"
#include "host/state_dir.hpp"

namespace gpukill::engine {

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

}  // namespace gpukill::engine
