// Growing a plan from its targets to the processes that keep their GPUs held: the
// descendants holding the same GPUs (DataLoader workers that would otherwise keep the
// memory after their trainer dies), and with --tree / --group every descendant or every
// member of the target's process group. Pure; internal to src/reclaim.
#pragma once

#include "reclaim/plan_builder.hpp"
#include "reclaim/process_index.hpp"
#include "reclaim/select.hpp"

namespace gpukill::reclaim {

// Expands from every target in `builder`, including those it adds, until nothing more is
// added. Each added process passes the safety rules like any candidate; a refused one is
// reported, not signalled, and the walk continues below it (a worker may sit under a
// refused or GPU-less intermediate such as a shell). Group expansion skips groups 0 and 1
// (kernel threads, init's) and gpukill's own group, whose members are its pipeline.
void expand_targets(PlanBuilder& builder, const ProcessIndex& index, const Selectors& selectors,
                    const SafetyContext& safety);

}  // namespace gpukill::reclaim
