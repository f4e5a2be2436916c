#include "reclaim/verify.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

namespace gpukill::reclaim {
namespace {

using Clock = std::chrono::steady_clock;

template <class T>
std::optional<T> lookup(const std::map<unsigned, std::optional<T>>& map, unsigned key) {
    auto it = map.find(key);
    return it == map.end() ? std::nullopt : it->second;
}

bool uses_gpu(const SnapshotProcess& process, unsigned gpu) {
    return std::any_of(process.gpus.begin(), process.gpus.end(),
                       [&](const ProcessGpuUse& use) { return use.gpu_index == gpu; });
}

// The planned start time of a target PID; empty when the plan does not know it.
std::optional<std::uint64_t> planned_start(const KillPlan& plan, pid_t pid) {
    for (const PlannedTarget& target : plan.targets) {
        if (target.identity.pid == pid) return target.identity.start_time_ticks;
    }
    return std::nullopt;
}

bool is_target(const SnapshotProcess& process, const KillPlan& plan,
               const std::vector<pid_t>& target_pids) {
    const pid_t pid = process.info.pid;
    if (std::find(target_pids.begin(), target_pids.end(), pid) == target_pids.end()) return false;
    const auto start = planned_start(plan, pid);
    return !start || !process.info_complete || process.info.start_time_ticks == *start;
}

Clock::duration to_duration(double seconds) {
    const double clamped = std::isfinite(seconds) ? std::clamp(seconds, 0.0, 1e7) : 0.0;
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(clamped));
}

}  // namespace

GpuRelease evaluate_release(unsigned gpu, const KillPlan& plan,
                            const std::vector<pid_t>& target_pids, const Snapshot& now) {
    GpuRelease release;
    release.gpu = gpu;
    release.memory_used_before = lookup(plan.gpu_memory_used_before, gpu);
    const auto expected = lookup(plan.gpu_memory_expected_release, gpu);
    bool used_is_processes_only = true;
    for (const Gpu& g : now.gpus) {
        if (g.index != gpu) continue;
        release.memory_used_after = g.reading.memory_used_bytes;
        used_is_processes_only = g.reading.process_list_accounts_memory;
    }
    const auto& before = release.memory_used_before;
    const auto& after = release.memory_used_after;
    if (before && after) release.memory_reclaimed_bytes = *before > *after ? *before - *after : 0;

    bool anyone_holds = false;
    for (const SnapshotProcess& process : now.processes) {
        if (!uses_gpu(process, gpu)) continue;
        // A monitoring client (the agent, DCGM) holds the file but none of the memory.
        anyone_holds |= !process.observer();
        if (is_target(process, plan, target_pids)) {
            release.targets_still_holding.push_back(process.info.pid);
        }
    }

    // The used memory the GPU should fall to, and whether it has.
    std::optional<bool> fell_to_expected;
    if (before && after && expected) {
        const std::uint64_t level = *before > *expected ? *before - *expected : 0;
        fell_to_expected = *after <= level + kReleaseToleranceBytes;
    } else if (before && after && used_is_processes_only) {
        // Expected unknown: only "nothing came back at all" can be told, and only where
        // used memory is all processes' (NVML). A DRM GPU's includes the kernel's and
        // firmware's own, which no kill frees: there the bytes cannot be judged.
        if (*after + kReleaseToleranceBytes >= *before) fell_to_expected = false;
    }
    release.soft_locked = !anyone_holds && after && *after > kReleaseToleranceBytes &&
                          fell_to_expected == std::optional<bool>(false);
    release.released = release.targets_still_holding.empty() && !release.soft_locked &&
                       fell_to_expected.value_or(true);
    return release;
}

std::vector<GpuRelease> verify_release(const KillPlan& plan, const std::vector<pid_t>& target_pids,
                                       const std::function<Snapshot()>& sample,
                                       const VerifyOptions& options,
                                       const std::function<Snapshot()>& full_sample) {
    std::map<unsigned, GpuRelease> results;
    if (plan.gpu_memory_used_before.empty()) return {};  // the targets held no GPU
    const Clock::time_point start = Clock::now();
    const Clock::time_point deadline = start + to_duration(options.timeout_seconds);
    const Clock::duration interval = to_duration(options.poll_interval_seconds);
    while (true) {
        const Snapshot now = sample();
        const Clock::time_point sampled = Clock::now();
        bool all_released = true;
        for (const auto& [gpu, before] : plan.gpu_memory_used_before) {
            auto found = results.find(gpu);
            if (found != results.end() && found->second.released) continue;
            GpuRelease release = evaluate_release(gpu, plan, target_pids, now);
            if (release.released) {
                release.seconds_to_release = std::chrono::duration<double>(sampled - start).count();
            } else {
                all_released = false;
            }
            results.insert_or_assign(gpu, std::move(release));
        }
        if (all_released) break;
        if (options.interrupted && options.interrupted()) break;
        if (sampled >= deadline) {
            if (full_sample) {
                const Snapshot full = full_sample();
                for (auto& [gpu, release] : results) {
                    if (!release.released) release = evaluate_release(gpu, plan, target_pids, full);
                }
            }
            break;
        }
        // A bounded wait on an outside condition (the driver tearing down contexts), whose
        // only signal is a fresh reading.
        std::this_thread::sleep_until(std::min(deadline, sampled + interval));
    }
    std::vector<GpuRelease> out;
    for (auto& [gpu, release] : results) out.push_back(std::move(release));
    return out;
}

}  // namespace gpukill::reclaim
