// Reading what the engine recorded: the action log (who did what to which process) and
// the usage history (what ran where, how much). Typed results for every interface;
// nothing here writes. A file that does not exist yet is an answer (available false),
// not an error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/audit_json.hpp"
#include "engine/engine.hpp"
#include "model/result.hpp"
#include "model/usage_summary.hpp"

namespace gpukill::engine {

// The doors' forms of the two queries (engine/request_tables.cpp describes their fields):
// a window of `hours` back from the engine's clock, and filters.
struct ActionsRequest {
    double hours = 24;
    std::optional<std::string> user;     // who acted, or whose process was the target
    std::optional<std::string> process;  // a pattern searched in target names
};

struct UsageRequest {
    double hours = 24;
    std::optional<std::string> user;     // this user's process samples
    std::optional<std::string> process;  // processes whose name or command matches
    bool summary = false;                // GPU-hours and peak memory per user and process, by hour
};

// What every door answers `audit --actions` with: the window and filters asked (the
// document's header) and the records.
struct ActionsOutcome {
    AuditScope scope;
    // The matching records as written, in file order (empty when nothing is recorded
    // yet: scope.source_available), and the lines that were not records.
    std::vector<nlohmann::ordered_json> records;
    std::size_t skipped_lines = 0;
    nlohmann::ordered_json document() const;  // docs/JSON.md, "gpukill audit --actions --json"
};

// What every door answers `audit` with: per-process usage, or the summary.
struct UsageOutcome {
    AuditScope scope;  // kind "processes" or "summary"
    history::SampleWeights weights;
    std::vector<history::ProcessUsage> processes;  // kind "processes"
    history::UsageSummary summary;                 // kind "summary"
    std::string why_unavailable;                   // nothing recorded yet: where it will be
    nlohmann::ordered_json document() const;       // docs/JSON.md, "gpukill audit --json"
};

// The window is `hours` back from the engine's clock. Errors: invalid_input (a bad
// pattern, an empty user), unavailable or permission (the file exists but cannot be
// read). Nothing recorded yet is an answer (scope.source_available false).
Result<ActionsOutcome> audit_actions(const Engine& engine, const ActionsRequest& request);
Result<UsageOutcome> audit_usage(const Engine& engine, const UsageRequest& request);

}  // namespace gpukill::engine
