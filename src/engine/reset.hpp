// reset: a request -> a preflight plan (reclaim/reset_plan.hpp) -> with --force, the
// holders reclaimed through the same act_and_verify path as kill -> the vendor reset,
// one group at a time -> the GPUs verified. Every step is audited by the engine under
// one run_id, naming the actor: reset_planned, reset_refused, the reclaim step's
// planned/signalled/result/verified, one reset_result per GPU.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "engine/kill.hpp"
#include "engine/reset_report.hpp"
#include "model/actor.hpp"
#include "model/reset_plan.hpp"
#include "model/reset_results.hpp"
#include "model/result.hpp"

namespace gpukill::engine {

struct ResetRequest {
    // "0", "0,1", UUIDs or PCI bus ids (nvidia-smi -i's list form); or all.
    std::optional<std::string> gpus;
    bool all = false;
    bool force = false;                  // reclaim the holders first
    double timeout_seconds = 5;          // per signal while reclaiming, 0..3600
    double verify_timeout_seconds = 10;  // for the GPUs to come back idle, 0..3600
    bool dry_run = false;
    std::optional<std::string> nvidia_smi;  // overrides the engine's
    std::string command;                    // what was asked, for the audit records
    // Go ahead only if the plan built now has this identity (see reset_plan_id): the
    // confirmation of a previewed (dry-run) reset through a stateless API.
    std::optional<std::string> expected_plan_id;
};

struct ResetOutcome {
    reclaim::ResetPlan plan;
    std::string plan_id;  // see reset_plan_id
    bool dry_run = false;
    double timeout_seconds = 5;
    std::optional<reclaim::KillPlan> reclaim_plan;
    std::optional<std::vector<reclaim::TargetResult>> reclaim_results;
    // Why nothing was reset after the plan said it would be, and who still holds.
    std::optional<std::string> stopped;
    std::vector<pid_t> still_holding;
    // The local gpukill agent that let go of its driver session for the reset
    // (engine/local_channel.hpp), if one serves this state directory.
    std::optional<pid_t> local_agent_pid;
    std::optional<std::vector<reclaim::ResetAttempt>> attempts;  // empty: none made
    std::vector<reclaim::ResetCheck> checks;
    int code = 0;  // the documented outcome code (README), as the command line exits
    std::optional<std::string> audit_problem;

    ResetReport report() const;  // docs/JSON.md, "gpukill reset --json"
};

// The identity of a reset plan (pure, engine/plan_identity.hpp): over its decision, the
// GPUs with their method, and the holders' PID and start time.
std::string reset_plan_id(const reclaim::ResetPlan& plan);

// Errors: conflict (expected_plan_id differs: nothing done, nothing recorded),
// invalid_input (gpus and all together or neither, a timeout out of range,
// protected.yaml malformed), not_found (no such GPU), unavailable (procfs unreadable),
// unsupported (procfs of another PID namespace, when holders must be reclaimed).
Result<ResetOutcome> reset(Engine& engine, const ResetRequest& request, const Actor& actor,
                           const ActControls& controls = {});

}  // namespace gpukill::engine
