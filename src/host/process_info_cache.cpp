#include "host/process_info_cache.hpp"

#include "host/proc_reader.hpp"

namespace gpukill {

std::vector<ProcessInfo> ProcessInfoCache::read(const HostRoots& roots, const std::set<pid_t>& pids,
                                                const std::set<pid_t>& changed, bool full) {
    std::map<pid_t, ProcessInfo> now;
    std::vector<ProcessInfo> result;
    result.reserve(pids.size());
    for (pid_t pid : pids) {
        const auto cached = known_.find(pid);
        if (!full && cached != known_.end() && !changed.contains(pid)) {
            auto stat = read_process_stat(roots, pid);
            if (!stat) continue;  // gone
            if (stat->start_time_ticks == cached->second.start_time_ticks) {
                ProcessInfo info = std::move(cached->second);
                apply_process_stat(*stat, info);
                ++stat_reads_;
                result.push_back(info);
                now.emplace(pid, std::move(info));
                continue;
            }
            // The PID names another process now: read it as new.
        }
        auto info = read_process(roots, pid);
        ++full_reads_;
        if (!info) continue;
        result.push_back(*info);
        now.emplace(pid, std::move(*info));
    }
    known_ = std::move(now);
    return result;
}

}  // namespace gpukill
