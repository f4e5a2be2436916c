// Reading what the engine recorded: the action log (who did what to which process) and
// the usage history (what ran where, how much). Typed results for every interface;
// nothing here writes. A file that does not exist yet is an answer (available false),
// not an error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "audit/action_log_reader.hpp"
#include "engine/engine.hpp"
#include "history/usage_store.hpp"
#include "history/usage_summary.hpp"
#include "model/pattern.hpp"
#include "model/result.hpp"

namespace gpukill::engine {

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

// Errors: unavailable or permission (the file exists but cannot be read).
Result<ActionQueryResult> query_actions(const Engine& engine, const ActionQuery& query);
Result<UsageQueryResult> query_usage(const Engine& engine, const UsageQuery& query);

}  // namespace gpukill::engine
