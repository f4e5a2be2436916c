// Audit records of guard run (schemas in docs/AUDIT.md): a warning given (or, in
// dry-run, that would be given) and an action taken (or that would be taken). Pure:
// the loop appends them to the AuditLog, which also sends their summary to syslog. The
// reclaim engine's own records (planned, signalled, result, verified) follow an action
// with the same run_id.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "audit/envelope.hpp"
#include "model/guard_decision.hpp"
#include "model/guard_policy.hpp"

namespace gpukill::guard {

// {"mode", "process": {"pid", "start_time_ticks", "name", "user", "uid", "gpus"}, "rule",
//  "rule_action",
//  "why", "grace_period_seconds", "acts_at" (RFC 3339 or null), "delivered_to" (terminals
//  the message was written to; empty in dry-run)}
nlohmann::ordered_json guard_warning_record(
    const audit::Invocation& who, Mode mode, const Decision& decision,
    const std::vector<std::string>& delivered_to,
    std::chrono::system_clock::time_point when = std::chrono::system_clock::now());

// {"mode", "process": {...as above}, "action"
//  ("terminate" or "kill"), "rules": [{"rule", "why"}], "outcome" (the reclaim outcome:
//  terminated, killed, survived, gone, refused...; null in dry-run), "note"}
nlohmann::ordered_json guard_action_record(
    const audit::Invocation& who, Mode mode, Verdict verdict,
    const std::vector<const Decision*>& because, const std::optional<std::string>& outcome,
    const std::optional<std::string>& note,
    std::chrono::system_clock::time_point when = std::chrono::system_clock::now());

// {"path", "change" (e.g. "mode enforce", "users.alice set to {memory_limit: 8G}",
//  "imported"), "from" (the imported file, or null)}
nlohmann::ordered_json guard_policy_changed_record(
    const audit::Invocation& who, const std::string& path, const std::string& change,
    const std::optional<std::string>& from,
    std::chrono::system_clock::time_point when = std::chrono::system_clock::now());

}  // namespace gpukill::guard
