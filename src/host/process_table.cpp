#include "host/process_table.hpp"

#include "host/proc_reader.hpp"

namespace gpukill {

Result<std::vector<ProcessInfo>> read_process_table(const HostRoots& roots) {
    auto pids = list_pids(roots);
    if (!pids) return std::unexpected(pids.error());
    std::vector<ProcessInfo> table;
    table.reserve(pids->size());
    for (pid_t pid : *pids) {
        // read_process fails only when stat is unreadable: the process is gone.
        if (auto info = read_process(roots, pid)) table.push_back(std::move(*info));
    }
    return table;  // list_pids is sorted, so the table is too
}

}  // namespace gpukill
