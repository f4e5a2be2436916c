#include "reclaim/process_index.hpp"

#include <algorithm>

namespace gpukill::reclaim {
namespace {
const std::vector<pid_t> kNone;
}  // namespace

ProcessIndex::ProcessIndex(const Snapshot& snapshot, const ProcessTable& table) {
    for (const ProcessInfo& info : table) table_.emplace(info.pid, &info);
    for (const SnapshotProcess& process : snapshot.processes) {
        snapshot_.emplace(process.info.pid, &process);
    }
    // Parent and group links from every process known either way: a holder missing from
    // the table (it started after the table was read) still has its parent recorded.
    auto link = [&](const ProcessInfo& info) {
        children_[info.ppid].push_back(info.pid);
        groups_[info.pgid].push_back(info.pid);
    };
    for (const auto& [pid, info] : table_) link(*info);
    for (const auto& [pid, process] : snapshot_) {
        if (!table_.contains(pid) && process->info_complete) link(process->info);
    }
    for (auto& [pid, list] : children_) std::sort(list.begin(), list.end());
    for (auto& [pgid, list] : groups_) std::sort(list.begin(), list.end());
}

const ProcessInfo* ProcessIndex::info(pid_t pid) const {
    if (auto it = table_.find(pid); it != table_.end()) return it->second;
    if (auto it = snapshot_.find(pid); it != snapshot_.end() && it->second->info_complete) {
        return &it->second->info;
    }
    return nullptr;
}

bool ProcessIndex::reused(pid_t pid) const {
    auto in_table = table_.find(pid);
    auto in_snapshot = snapshot_.find(pid);
    if (in_table == table_.end() || in_snapshot == snapshot_.end()) return false;
    const SnapshotProcess& held = *in_snapshot->second;
    // A holder whose details could not be read cannot be shown to be the process now
    // under its PID: treat it as reused rather than guess.
    return !held.info_complete || held.info.start_time_ticks != in_table->second->start_time_ticks;
}

const SnapshotProcess* ProcessIndex::holder(pid_t pid) const {
    auto it = snapshot_.find(pid);
    if (it == snapshot_.end() || reused(pid)) return nullptr;
    return it->second;
}

const std::vector<pid_t>& ProcessIndex::children(pid_t pid) const {
    auto it = children_.find(pid);
    return it == children_.end() ? kNone : it->second;
}

const std::vector<pid_t>& ProcessIndex::group(pid_t pgid) const {
    auto it = groups_.find(pgid);
    return it == groups_.end() ? kNone : it->second;
}

std::vector<unsigned> ProcessIndex::gpus(pid_t pid) const {
    std::vector<unsigned> held;
    if (const SnapshotProcess* process = holder(pid)) {
        for (const ProcessGpuUse& use : process->gpus) {
            if (use.known()) held.push_back(use.gpu_index);
        }
    }
    std::sort(held.begin(), held.end());
    held.erase(std::unique(held.begin(), held.end()), held.end());
    return held;
}

}  // namespace gpukill::reclaim
