// The protected list guard enforcement acts under: gpukill's own (built-in or
// protected.yaml) joined with the policy's `protected` section. Enforcement hands it to
// the plan builder, which checks every target against it, including the workers, tree
// and group members that expansion adds after the decisions were made: protection is
// decided once, on the final target set, whatever put a process there.
#pragma once

#include "model/guard_policy.hpp"
#include "reclaim/select.hpp"

namespace gpukill::guard {

// Policy executables holding '/' are exact paths; the others are names (comm or
// executable basename), as rules::executable_listed reads them.
reclaim::ProtectedList protection_for_actions(const Policy& policy,
                                              reclaim::ProtectedList gpukill_protected);

}  // namespace gpukill::guard
