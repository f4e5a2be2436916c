// Audit records of the reclaim flow (plan -> execute -> verify), built from the reclaim
// types. Pure: the caller appends them to an AuditLog. Schemas in docs/AUDIT.md.
//
// Order of a `gpukill kill` run, each step appended (one write, one sync) as it happens:
//   plan_records()          planned, then one refused per refusal
//   then per round of signals (the first signal; SIGKILL to the survivors with --force):
//     signal_intent_records()  one signal_intent per signal about to be sent, written
//                              before the first of them goes out
//     signalled_records()      one signalled per signal that was delivered
//   result_records()        one result per target (plan order), after the waits
//   verification_records()  one verified per GPU the targets held
#pragma once

#include <chrono>
#include <vector>

#include <nlohmann/json.hpp>

#include "audit/envelope.hpp"
#include "model/kill_plan.hpp"
#include "reclaim/execute.hpp"
#include "reclaim/verify.hpp"

namespace gpukill::audit {

using TimePoint = std::chrono::system_clock::time_point;

// {"pid", "start_time_ticks", "name", "user", "uid", "state", "reason", "reason_detail",
//  "gpus": [{"index", "memory_bytes"}]}: the identity and why it was chosen.
nlohmann::ordered_json target_json(const reclaim::PlannedTarget& target);

// {"pid" (null when the argument was not a number), "argument", "name", "kind", "why",
//  "explicitly_named"}.
nlohmann::ordered_json refusal_json(const reclaim::Refusal& refusal);

nlohmann::ordered_json planned_record(const Invocation& who, const reclaim::KillPlan& plan,
                                      TimePoint when = std::chrono::system_clock::now());
nlohmann::ordered_json refused_record(const Invocation& who, const reclaim::Refusal& refusal,
                                      bool plan_aborted,
                                      TimePoint when = std::chrono::system_clock::now());
// `signal` is about to be sent to `target`.
nlohmann::ordered_json signal_intent_record(const Invocation& who,
                                            const reclaim::PlannedTarget& target, int signal,
                                            TimePoint when = std::chrono::system_clock::now());
// `signal` reached the target; `result.signals_sent` is every signal it got so far.
nlohmann::ordered_json signalled_record(const Invocation& who, const reclaim::TargetResult& result,
                                        int signal,
                                        TimePoint when = std::chrono::system_clock::now());
nlohmann::ordered_json result_record(const Invocation& who, const reclaim::TargetResult& result,
                                     TimePoint when = std::chrono::system_clock::now());
nlohmann::ordered_json verified_record(const Invocation& who, const reclaim::GpuRelease& release,
                                       TimePoint when = std::chrono::system_clock::now());

std::vector<nlohmann::ordered_json> plan_records(const Invocation& who,
                                                 const reclaim::KillPlan& plan,
                                                 TimePoint when = std::chrono::system_clock::now());
std::vector<nlohmann::ordered_json> signal_intent_records(
    const Invocation& who, const std::vector<reclaim::SignalSend>& sends,
    const reclaim::ExecuteResult& executed, TimePoint when = std::chrono::system_clock::now());
std::vector<nlohmann::ordered_json> signalled_records(
    const Invocation& who, const std::vector<reclaim::SignalSend>& sends,
    const reclaim::ExecuteResult& executed, TimePoint when = std::chrono::system_clock::now());
std::vector<nlohmann::ordered_json> result_records(
    const Invocation& who, const reclaim::ExecuteResult& executed,
    TimePoint when = std::chrono::system_clock::now());
std::vector<nlohmann::ordered_json> verification_records(
    const Invocation& who, const std::vector<reclaim::GpuRelease>& releases,
    TimePoint when = std::chrono::system_clock::now());

}  // namespace gpukill::audit
