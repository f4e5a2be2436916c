// Accumulates a KillPlan one candidate at a time: each PID is decided once (target or
// refusal), every candidate passes the safety rules, and a target carries what the
// snapshot knows of its GPUs. Pure; internal to src/reclaim.
#pragma once

#include <sys/types.h>

#include <set>
#include <string>
#include <vector>

#include "model/kill_plan.hpp"
#include "reclaim/process_index.hpp"
#include "reclaim/select.hpp"

namespace gpukill::reclaim {

class PlanBuilder {
  public:
    // `named_must_hold_gpu` (no --any-process): an explicitly named candidate that
    // neither holds a GPU nor has a descendant holding one is refused (holds_no_gpu), so
    // a mistyped PID does not end an unrelated process.
    PlanBuilder(const ProcessIndex& index, const SafetyContext& safety, bool named_must_hold_gpu)
        : index_(index), safety_(safety), named_must_hold_gpu_(named_must_hold_gpu) {}

    // Decides `pid` if it is not decided yet: a refusal when it is unknown, its PID was
    // reused since the snapshot, a safety rule forbids it, or (named, see above) it holds
    // no GPU; a target otherwise. Returns whether it is a target (now or from an earlier
    // decision).
    bool consider(pid_t pid, TargetReason reason, std::string detail, bool explicitly_named);

    // Records a refusal decided elsewhere (an invalid argument, a named PID the selectors
    // exclude). A refusal with a PID decides that PID.
    void refuse(Refusal refusal);

    bool decided(pid_t pid) const { return decided_.contains(pid); }

    // Targets in the order they were accepted (expansion walks them in this order).
    const std::vector<PlannedTarget>& targets() const { return plan_.targets; }

    // The plan with targets sorted by PID.
    KillPlan finish() &&;

  private:
    const ProcessIndex& index_;
    const SafetyContext& safety_;
    bool named_must_hold_gpu_;
    KillPlan plan_;
    std::set<pid_t> decided_;
    std::set<pid_t> target_pids_;
};

}  // namespace gpukill::reclaim
