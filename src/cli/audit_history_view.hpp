// Rendering `gpukill audit` (per-process usage) and `gpukill audit --audit-summary`:
// a table for people, one JSON document for scripts (schema in docs/JSON.md).
#pragma once

#include "engine/audit_json.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/text_wrap.hpp"
#include "model/usage_summary.hpp"

namespace gpukill::cli {

using engine::AuditScope;

std::string process_usage_table(const AuditScope& scope, const history::SampleWeights& weights,
                                const std::vector<history::ProcessUsage>& processes,
                                OutputWidth width = std::nullopt);

std::string usage_summary_table(const AuditScope& scope, const history::SampleWeights& weights,
                                const history::UsageSummary& summary,
                                OutputWidth width = std::nullopt);

// "last 24 h, 2026-11-29 10:00:00 to 2026-11-30 10:00:00"
std::string describe_window(const AuditScope& scope);

}  // namespace gpukill::cli
