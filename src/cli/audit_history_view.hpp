// Rendering `gpukill audit` (per-process usage) and `gpukill audit --audit-summary`:
// a table for people, one JSON document for scripts (schema in docs/JSON.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "history/usage_summary.hpp"

namespace gpukill::cli {

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
std::string process_usage_table(const AuditScope& scope, const history::SampleWeights& weights,
                                const std::vector<history::ProcessUsage>& processes);

nlohmann::ordered_json usage_summary_json(const AuditScope& scope,
                                          const history::SampleWeights& weights,
                                          const history::UsageSummary& summary);
std::string usage_summary_table(const AuditScope& scope, const history::SampleWeights& weights,
                                const history::UsageSummary& summary);

// "last 24 h, 2026-11-29 10:00:00 to 2026-11-30 10:00:00"
std::string describe_window(const AuditScope& scope);

}  // namespace gpukill::cli
