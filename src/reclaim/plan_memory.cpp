#include "reclaim/plan_memory.hpp"

#include <set>
#include <unordered_map>

namespace gpukill::reclaim {
namespace {

const ProcessGpuUse* use_on(const SnapshotProcess& process, unsigned gpu) {
    for (const ProcessGpuUse& use : process.gpus) {
        if (use.gpu_index == gpu) return &use;
    }
    return nullptr;
}

bool unlisted_holder(const ProcessGpuUse& use) {
    return use.seen_by.device_file && !use.seen_by.driver;
}

// The targets' snapshot entries: same PID and, where the snapshot knows it, same start time.
std::vector<const SnapshotProcess*> target_entries(const KillPlan& plan, const Snapshot& snapshot) {
    std::unordered_map<pid_t, const SnapshotProcess*> by_pid;
    for (const SnapshotProcess& process : snapshot.processes) by_pid[process.info.pid] = &process;
    std::vector<const SnapshotProcess*> entries;
    for (const PlannedTarget& target : plan.targets) {
        auto it = by_pid.find(target.identity.pid);
        if (it == by_pid.end()) continue;
        const SnapshotProcess& process = *it->second;
        if (process.info_complete &&
            process.info.start_time_ticks != target.identity.start_time_ticks) {
            continue;
        }
        entries.push_back(&process);
    }
    return entries;
}

std::optional<std::uint64_t> expected_release(unsigned gpu_index, const Gpu* gpu,
                                              const std::vector<const SnapshotProcess*>& targets,
                                              const Snapshot& snapshot) {
    std::uint64_t sum = 0;
    bool target_unlisted = false;
    std::set<pid_t> target_pids;
    for (const SnapshotProcess* process : targets) {
        const ProcessGpuUse* use = use_on(*process, gpu_index);
        if (use == nullptr) continue;
        target_pids.insert(process->info.pid);
        if (use->seen_by.driver) {
            if (!use->memory_bytes) return std::nullopt;
            sum += *use->memory_bytes;
        } else if (use->seen_by.device_file) {
            target_unlisted = true;
        }
    }
    if (!target_unlisted) return sum;
    if (gpu == nullptr || !gpu->unattributed_memory_bytes) return std::nullopt;
    for (const SnapshotProcess& process : snapshot.processes) {
        const ProcessGpuUse* use = use_on(process, gpu_index);
        // An observer (a monitoring client) holds none of the memory nobody accounts for.
        if (use != nullptr && unlisted_holder(*use) && !process.observer() &&
            !target_pids.contains(process.info.pid)) {
            return std::nullopt;
        }
    }
    return sum + *gpu->unattributed_memory_bytes;
}

}  // namespace

void fill_gpu_memory(KillPlan& plan, const Snapshot& snapshot) {
    std::set<unsigned> held;
    for (const PlannedTarget& target : plan.targets)
        held.insert(target.gpus.begin(), target.gpus.end());
    const auto entries = target_entries(plan, snapshot);
    for (unsigned index : held) {
        const Gpu* gpu = find_gpu(snapshot, index);
        plan.gpu_memory_used_before[index] =
            gpu != nullptr ? gpu->reading.memory_used_bytes : std::nullopt;
        plan.gpu_memory_expected_release[index] = expected_release(index, gpu, entries, snapshot);
    }
}

}  // namespace gpukill::reclaim
