// The safety rules every candidate passes, whether named, matched or added as a worker:
// never init, gpukill or anything it runs under, a kernel thread, a protected process,
// or (without the privilege to) another user's process. Pure; internal to src/reclaim.
#pragma once

#include <optional>

#include "model/kill_plan.hpp"
#include "model/process.hpp"
#include "reclaim/select.hpp"

namespace gpukill::reclaim {

// The refusal for `info`, or empty when it may be signalled. The first rule broken wins,
// in the order: init, self or ancestor, kernel thread, protected, permission.
// `explicitly_named` is copied into the refusal (named refusals abort the plan).
std::optional<Refusal> check_safety(const ProcessInfo& info, const SafetyContext& safety,
                                    bool explicitly_named);

// Whether the process is on the list: by PID, by its owner's exact user name, or by
// program (a name as the executable's file name, a path as its exact path, an owned
// program only for its accounts), the last only when `system_programs` holds it
// (system_program.hpp). comm is never read: any process may set it.
bool is_protected(const ProcessInfo& info, const ProtectedList& list,
                  const SystemPrograms& system_programs);

}  // namespace gpukill::reclaim
