// Rogue findings as JSON: the `gpukill audit --rogue --json` document and the
// `rogue_finding` audit record. Schemas in docs/JSON.md and docs/AUDIT.md. Pure.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "audit/envelope.hpp"
#include "detect/assessment.hpp"

namespace gpukill::detect {

inline constexpr int kRogueSchemaVersion = 1;
// A command line longer than this is cut (at a character boundary, ending "...") in
// output and records: a finding's record must stay one reasonable line.
inline constexpr std::size_t kMaxCommandBytes = 4096;

// The process's arguments shell-joined, at most kMaxCommandBytes.
std::string command_text(const ProcessInfo& info);

// {"pid", "start_time_ticks", "user", "uid", "name", "exe", "exe_deleted", "command",
//  "container", "orphaned", "gpus": [{"index", "memory_bytes"}], "score", "risk",
//  "evidence": [{"signal", "weight", "detail"}], "notes", "allowed_by"}
nlohmann::ordered_json assessment_json(const Assessment& assessment);

struct ReportContext {
    std::string host;
    std::int64_t timestamp_unix_ms = 0;
    std::string config_source;
    int report_threshold = 0;
    double window_hours = 0;
    bool history_available = false;
    std::optional<std::string> history_note;  // why there is none
};

nlohmann::ordered_json report_json(const RogueReport& report, const ReportContext& context);

// The audit envelope, event "rogue_finding", then "process" (the assessment without
// score and evidence), "score", "risk", "evidence", "config_source".
nlohmann::ordered_json rogue_finding_record(
    const audit::Invocation& who, const Assessment& finding, const std::string& config_source,
    std::chrono::system_clock::time_point when = std::chrono::system_clock::now());

// Event "rogue_config_installed": "path" (installed), "from" (the imported file).
nlohmann::ordered_json rogue_config_installed_record(
    const audit::Invocation& who, const std::string& path, const std::string& from,
    std::chrono::system_clock::time_point when = std::chrono::system_clock::now());

}  // namespace gpukill::detect
