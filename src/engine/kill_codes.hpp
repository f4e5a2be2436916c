// The exit code of `gpukill kill`, decided from what happened (pure). Scripts
// (Slurm epilogs, CI health checks) rely on these; README lists them.
#pragma once

#include <vector>

#include "model/kill_plan.hpp"
#include "reclaim/execute.hpp"
#include "reclaim/verify.hpp"

namespace gpukill::engine {

namespace kill_exit {
inline constexpr int preview_only = 2;  // a many-process selector without --batch
inline constexpr int survivors = 6;     // some targets are still alive
inline constexpr int soft_locked = 7;   // targets gone, memory held by nobody: reset
inline constexpr int not_released = 8;  // memory not back within --verify-timeout
}  // namespace kill_exit

// For a plan that was aborted: 4 when every named refusal is a permission problem,
// else 3.
int aborted_plan_exit_code(const reclaim::KillPlan& plan);

// After execution and verification: survivors first, then processes the kernel or
// the plan refused for lack of privilege (4: the GPU is not clear and root could
// clear it), then soft lock, then an unconfirmed release; 0 when every target is
// gone and its memory came back. Protected processes a selector matched do not
// count: they are kept on purpose.
int executed_plan_exit_code(const reclaim::KillPlan& plan,
                            const std::vector<reclaim::TargetResult>& results,
                            const std::vector<reclaim::GpuRelease>& releases);

}  // namespace gpukill::engine
