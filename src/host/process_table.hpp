// Every process on the host, not only GPU holders: `gpukill kill` needs parents,
// children and process groups to find a target's workers and to refuse its own ancestors.
#pragma once

#include <vector>

#include "model/host_roots.hpp"
#include "model/process.hpp"
#include "model/result.hpp"

namespace gpukill {

// list_pids + read_process for each, sorted by PID. A process that exits (or cannot be
// read) between listing and reading is left out: the table is a moment, and a process
// missing from it is simply not selectable. Fails only when procfs cannot be listed.
Result<std::vector<ProcessInfo>> read_process_table(const HostRoots& roots);

// The named processes and all their descendants, found through
// /proc/PID/task/TID/children (every thread's), sorted by PID: for a kill of known PIDs,
// work proportional to them and their workers instead of to the host. The same entries
// read_process_table would give for those processes; a PID that does not exist is left
// out. A child forked between reading its parent's children and now is not seen: the
// table is a moment, as read_process_table's is.
std::vector<ProcessInfo> read_process_family(const HostRoots& roots,
                                             const std::vector<pid_t>& pids);

}  // namespace gpukill
