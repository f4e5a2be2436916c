#include "reclaim/reset_verify.hpp"

#include <poll.h>

#include <algorithm>
#include <chrono>

namespace gpukill::reclaim {
namespace {

using Clock = std::chrono::steady_clock;

const Gpu* find_again(const ResetGpu& gpu, const Snapshot& now) {
    for (const Gpu& candidate : now.gpus) {
        const GpuReading& r = candidate.reading;
        if (gpu.pci_bus_id ? r.pci_bus_id == gpu.pci_bus_id
            : gpu.uuid     ? r.uuid == gpu.uuid
                           : candidate.index == gpu.index) {
            return &candidate;
        }
    }
    return nullptr;
}

}  // namespace

std::uint64_t idle_memory_tolerance_bytes(std::optional<std::uint64_t> memory_total_bytes) {
    constexpr std::uint64_t kFloor = 64ULL << 20;
    if (!memory_total_bytes) return kFloor;
    return std::max(kFloor, *memory_total_bytes / 100);
}

ResetCheck evaluate_reset(const ResetGpu& gpu, const Snapshot& now) {
    ResetCheck check;
    check.gpu = gpu.index;
    const Gpu* found = find_again(gpu, now);
    if (found == nullptr) return check;
    const GpuReading& r = found->reading;
    check.found = true;
    check.lost = r.lost;
    check.memory_used_after_bytes = r.memory_used_bytes;
    check.memory_judged = r.process_list_accounts_memory && r.memory_used_bytes.has_value();
    check.memory_free = check.memory_judged &&
                        *r.memory_used_bytes <= idle_memory_tolerance_bytes(r.memory_total_bytes);
    for (const SnapshotProcess& process : now.processes) {
        if (process.observer()) continue;  // a monitor reopening the GPU uses none of it
        for (const ProcessGpuUse& use : process.gpus) {
            if (use.gpu_index == found->index) {
                check.holders.push_back(process.info.pid);
                break;
            }
        }
    }
    check.ok = !check.lost && check.holders.empty() && (check.memory_free || !check.memory_judged);
    return check;
}

std::vector<ResetCheck> verify_reset(const std::vector<ResetGpu>& gpus,
                                     const std::function<Snapshot()>& sample,
                                     const ResetVerifyOptions& options) {
    std::vector<ResetCheck> checks(gpus.size());
    std::vector<bool> settled(gpus.size(), false);
    const auto start = Clock::now();
    const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(options.timeout_seconds));
    while (true) {
        const Snapshot now = sample();
        const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        for (std::size_t i = 0; i < gpus.size(); ++i) {
            if (settled[i]) continue;
            checks[i] = evaluate_reset(gpus[i], now);
            if (checks[i].ok) {
                checks[i].seconds_to_ok = elapsed;
                settled[i] = true;
            }
        }
        if (std::all_of(settled.begin(), settled.end(), [](bool done) { return done; })) break;
        if (Clock::now() >= deadline) break;
        const auto left = std::chrono::duration<double>(deadline - Clock::now()).count();
        poll(nullptr, 0,
             static_cast<int>(std::min(left, options.poll_interval_seconds) * 1000.0) + 1);
    }
    return checks;
}

}  // namespace gpukill::reclaim
