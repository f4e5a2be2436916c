#include "guard/protection.hpp"

namespace gpukill::guard {

reclaim::ProtectedList protection_for_actions(const Policy& policy,
                                              reclaim::ProtectedList gpukill_protected) {
    const ProtectedSet& own = policy.protected_processes;
    gpukill_protected.pids.insert(own.pids.begin(), own.pids.end());
    gpukill_protected.users.insert(own.users.begin(), own.users.end());
    for (const std::string& executable : own.executables) {
        if (executable.find('/') != std::string::npos) {
            gpukill_protected.executable_paths.insert(executable);
        } else {
            gpukill_protected.names.insert(executable);
        }
    }
    return gpukill_protected;
}

}  // namespace gpukill::guard
