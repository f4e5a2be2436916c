// Audit records of `gpukill reset`, built from the reset types. Pure: the caller appends
// them to an AuditLog. Schemas in docs/AUDIT.md ("Resets").
//
// Order of a reset run, appended as each step finishes:
//   reset_planned                the preflight and the decision (also for --dry-run)
//   reset_refused                when the plan is held or refused, or when holders are
//                                still there after reclaiming them (nothing is reset)
//   planned, refused, signalled, result   (reclaim_records.hpp) when --force reclaims
//   reset_result                 one per GPU that was reset (or attempted)
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "audit/envelope.hpp"
#include "reclaim/reset_exec.hpp"
#include "reclaim/reset_plan.hpp"
#include "reclaim/reset_verify.hpp"

namespace gpukill::audit {

using ResetTime = std::chrono::system_clock::time_point;

// The whole plan: decision, GPUs with their method and notes, skipped GPUs, holders.
nlohmann::ordered_json reset_planned_record(const Invocation& who, const reclaim::ResetPlan& plan,
                                            bool dry_run,
                                            ResetTime when = std::chrono::system_clock::now());

// Nothing was reset, and why. `why`/`block` default to the plan's; after a reclaim that
// left holders the caller gives its own line and the PIDs still holding.
nlohmann::ordered_json reset_refused_record(const Invocation& who, const reclaim::ResetPlan& plan,
                                            const std::string& why,
                                            const std::vector<pid_t>& holders,
                                            ResetTime when = std::chrono::system_clock::now());

// One GPU: what was run and what it answered, and what the GPU looked like afterwards.
// `check` is empty when the reset failed and the GPU was not checked.
nlohmann::ordered_json reset_result_record(const Invocation& who, const reclaim::ResetGpu& gpu,
                                           const reclaim::ResetAttempt& attempt,
                                           const std::optional<reclaim::ResetCheck>& check,
                                           ResetTime when = std::chrono::system_clock::now());

// Shared with the --json report: one planned GPU, one holder, one attempt, one check.
nlohmann::ordered_json reset_gpu_json(const reclaim::ResetGpu& gpu);
nlohmann::ordered_json reset_holder_json(const reclaim::ResetHolder& holder);
nlohmann::ordered_json reset_attempt_json(const reclaim::ResetAttempt& attempt);
nlohmann::ordered_json reset_check_json(const reclaim::ResetGpu& gpu,
                                        const std::optional<reclaim::ResetCheck>& check);

// The tool's output kept in records and reports: its last this-many bytes.
inline constexpr std::size_t kResetOutputBytes = 4096;

}  // namespace gpukill::audit
