// What `gpukill guard test` prints: per process, each rule it breaks, why, and what
// guard run would do about it. Text for people, JSON (docs/GUARD.md) for scripts.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/text_wrap.hpp"
#include "guard/decision.hpp"
#include "guard/policy.hpp"

namespace gpukill::cli {

struct GuardReport {
    std::string policy_path;
    guard::Mode mode = guard::Mode::dry_run;
    std::chrono::seconds terminate_timeout{10};
    std::int64_t evaluated_at_unix_ms = 0;
    std::string snapshot_source;  // "live" or the snapshot file
    std::size_t processes_checked = 0;
    const std::vector<guard::Decision>* decisions = nullptr;
    std::vector<std::string> notes;  // what limited the evaluation (no history, ...)
};

inline constexpr int kGuardReportSchemaVersion = 1;

std::string render_guard_report(const GuardReport& report);
// The same text from its JSON document (guard_report_json): what a fleet host's answer
// reads as. render_guard_report is this over guard_report_json, so both read alike.
std::string render_guard_document(const nlohmann::ordered_json& doc);
nlohmann::ordered_json guard_report_json(const GuardReport& report);

}  // namespace gpukill::cli
