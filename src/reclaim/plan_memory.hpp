// What verification compares against: per GPU the targets hold, the memory used at
// planning time and the memory expected back once they are gone. Pure; internal.
#pragma once

#include "model/kill_plan.hpp"
#include "model/snapshot.hpp"

namespace gpukill::reclaim {

// Fills plan.gpu_memory_used_before and plan.gpu_memory_expected_release for every GPU a
// target holds. Expected release on GPU g is the targets' driver-listed memory on g, plus
// g's unattributed memory when a target holds g only by its device file (the driver
// lists no memory for it). That second part is known only when every device-file-only
// holder of g is a target: the unattributed memory is their combined share and there is
// no telling how it splits. Unknown (empty) when a driver-listed target's memory is not
// available, the unattributed memory is unknown, or another unlisted holder remains.
void fill_gpu_memory(KillPlan& plan, const Snapshot& snapshot);

}  // namespace gpukill::reclaim
