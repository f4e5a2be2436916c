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

// Whether the process is on the list, by PID, exact user name, exact comm or exact
// executable basename. comm is cut by the kernel to 15 characters, so a listed name
// longer than that matches a comm equal to its first 15 ("nvidia-persiste").
bool is_protected(const ProcessInfo& info, const ProtectedList& list);

}  // namespace gpukill::reclaim
