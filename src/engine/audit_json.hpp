// The documents `gpukill audit --json` prints (docs/JSON.md) and other interfaces
// return: per-process usage, the usage summary and the action log, each with the same
// header saying what was asked and where it was read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/usage_summary.hpp"

namespace gpukill::engine {

// What was asked and where it was read: the header of every audit document.
struct AuditScope {
    std::string kind;              // "processes", "summary", "actions"
    std::string source;            // the history or action log file
    bool source_available = true;  // false: the file does not exist yet
    double hours = 24;
    std::int64_t since_unix_ms = 0;
    std::int64_t until_unix_ms = 0;
    std::optional<std::string> user;
    std::optional<std::string> process;
};

// {"schema_version", "kind", "source", "source_available", "window", "filters"}
nlohmann::ordered_json audit_header_json(const AuditScope& scope);

nlohmann::ordered_json process_usage_json(const AuditScope& scope,
                                          const history::SampleWeights& weights,
                                          const std::vector<history::ProcessUsage>& processes);
nlohmann::ordered_json usage_summary_json(const AuditScope& scope,
                                          const history::SampleWeights& weights,
                                          const history::UsageSummary& summary);
// The header, "skipped_lines", and the records as written.
nlohmann::ordered_json actions_json(const AuditScope& scope,
                                    const std::vector<nlohmann::ordered_json>& records,
                                    std::size_t skipped_lines);

}  // namespace gpukill::engine
