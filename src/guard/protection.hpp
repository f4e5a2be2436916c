// The protected list guard enforcement acts under: gpukill's own (built-in or
// protected.yaml) joined with the policy's `protected` section. Enforcement hands it to
// the plan builder, which checks every target against it, including the workers, tree
// and group members that expansion adds after the decisions were made: protection is
// decided once, on the final target set, whatever put a process there.
#pragma once

#include "model/guard_policy.hpp"
#include "model/host_roots.hpp"
#include "model/snapshot.hpp"
#include "reclaim/select.hpp"

namespace gpukill::guard {

// Policy executables holding '/' are exact paths; the others are the executable's file
// name. Either protects only a process that runs a system program
// (reclaim/system_program.hpp).
reclaim::ProtectedList protection_for_actions(const Policy& policy,
                                              reclaim::ProtectedList gpukill_protected);

// The processes of `snapshot` that a program of gpukill's list or of the policy's
// protected executables names and that run a system program: EvaluationInput's
// system_programs. Reads procfs for those few processes alone.
reclaim::SystemPrograms system_programs_for(const HostRoots& roots, const Policy& policy,
                                            const reclaim::ProtectedList& gpukill_protected,
                                            const Snapshot& snapshot);

}  // namespace gpukill::guard
