#include "engine/kill_codes.hpp"

#include <algorithm>

#include "engine/outcome_codes.hpp"

namespace gpukill::engine {

int aborted_plan_exit_code(const reclaim::KillPlan& plan) {
    bool any_named = false;
    bool all_permission = true;
    for (const reclaim::Refusal& refusal : plan.refusals) {
        if (!refusal.explicitly_named) continue;
        any_named = true;
        all_permission &= refusal.kind == reclaim::RefusalKind::permission;
    }
    return any_named && all_permission ? exit_code::permission_denied
                                       : exit_code::invalid_arguments;
}

int executed_plan_exit_code(const reclaim::KillPlan& plan,
                            const std::vector<reclaim::TargetResult>& results,
                            const std::vector<reclaim::GpuRelease>& releases) {
    if (std::any_of(results.begin(), results.end(), [](const reclaim::TargetResult& r) {
            return r.outcome == reclaim::Outcome::survived;
        })) {
        return kill_exit::survivors;
    }
    // gpukill's own trouble (no descriptors left): not the caller's permission.
    if (std::any_of(results.begin(), results.end(), [](const reclaim::TargetResult& r) {
            return r.outcome == reclaim::Outcome::failed;
        })) {
        return exit_code::failure;
    }
    const bool denied_at_run_time = std::any_of(
        results.begin(), results.end(),
        [](const reclaim::TargetResult& r) { return r.outcome == reclaim::Outcome::refused; });
    const bool denied_in_plan = std::any_of(
        plan.refusals.begin(), plan.refusals.end(),
        [](const reclaim::Refusal& r) { return r.kind == reclaim::RefusalKind::permission; });
    if (denied_at_run_time || denied_in_plan) return exit_code::permission_denied;
    if (std::any_of(releases.begin(), releases.end(),
                    [](const reclaim::GpuRelease& r) { return r.soft_locked; })) {
        return kill_exit::soft_locked;
    }
    if (std::any_of(releases.begin(), releases.end(),
                    [](const reclaim::GpuRelease& r) { return !r.released; })) {
        return kill_exit::not_released;
    }
    return exit_code::ok;
}

}  // namespace gpukill::engine
