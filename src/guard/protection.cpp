#include "guard/protection.hpp"

#include "reclaim/system_program.hpp"

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

reclaim::SystemPrograms system_programs_for(const HostRoots& roots, const Policy& policy,
                                            const reclaim::ProtectedList& gpukill_protected,
                                            const Snapshot& snapshot) {
    std::vector<const ProcessInfo*> processes;
    processes.reserve(snapshot.processes.size());
    for (const SnapshotProcess& process : snapshot.processes) processes.push_back(&process.info);
    return reclaim::find_system_programs(
        roots, processes,
        reclaim::program_entries(protection_for_actions(policy, gpukill_protected)));
}

}  // namespace gpukill::guard
