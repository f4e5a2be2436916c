// Every process on the host, not only GPU holders: `gpukill kill` needs parents,
// children and process groups to find a target's workers and to refuse its own ancestors.
#pragma once

#include <vector>

#include "host/roots.hpp"
#include "model/process.hpp"
#include "model/result.hpp"

namespace gpukill {

// list_pids + read_process for each, sorted by PID. A process that exits (or cannot be
// read) between listing and reading is left out: the table is a moment, and a process
// missing from it is simply not selectable. Fails only when procfs cannot be listed.
Result<std::vector<ProcessInfo>> read_process_table(const HostRoots& roots);

}  // namespace gpukill
