// A reset's preflight, plan and outcome as one JSON document (docs/JSON.md, "gpukill
// reset --json"): what the command line prints and what other interfaces return.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/kill_report.hpp"
#include "model/kill_plan.hpp"
#include "model/kill_results.hpp"
#include "model/reset_plan.hpp"
#include "model/reset_results.hpp"

namespace gpukill::engine {

inline constexpr int kResetSchemaVersion = 1;

struct ResetReport {
    const reclaim::ResetPlan* plan = nullptr;
    bool dry_run = false;
    double timeout_seconds = 5;  // per signal while reclaiming holders
    // The reclaim step (--force with holders): its plan, and its results once run.
    const reclaim::KillPlan* reclaim_plan = nullptr;
    const std::vector<reclaim::TargetResult>* reclaim_results = nullptr;
    // Why nothing was reset after the plan said it would be (holders survived the reclaim,
    // refused to be signalled, or new ones came), and who still holds the GPUs.
    std::optional<std::string> stopped;
    std::vector<pid_t> still_holding;
    // The local gpukill agent that let go of its driver session for the reset, if one did.
    std::optional<pid_t> local_agent_pid;
    const std::vector<reclaim::ResetAttempt>* attempts = nullptr;  // null: nothing attempted
    const std::vector<reclaim::ResetCheck>* checks = nullptr;      // GPUs verified afterwards
    int exit_code = 0;
    std::string plan_id;
};

nlohmann::ordered_json reset_report_json(const ResetReport& report);
// The attempt that reset `gpu`, and its verification, when there were any.
const reclaim::ResetAttempt* attempt_for(const ResetReport& report, unsigned gpu);
std::optional<reclaim::ResetCheck> check_for(const ResetReport& report, unsigned gpu);
// The reclaim step (--force) as a kill report.
KillReport reclaim_kill_report(const ResetReport& report);

}  // namespace gpukill::engine
