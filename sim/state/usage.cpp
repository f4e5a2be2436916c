#include "state/usage.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include "state/files.hpp"
#include "state/holder_lock.hpp"
#include "state/proc_identity.hpp"

namespace gpusim {

std::uint64_t GpuUsage::held_bytes() const {
    std::uint64_t total = 0;
    for (const AllocationState& allocation : allocations) {
        if (allocation.held) total += allocation.record.bytes;
    }
    return total;
}

std::uint64_t GpuUsage::leaked_bytes() const {
    std::uint64_t total = 0;
    for (const LeakRecord& leak : leaks) total += leak.bytes;
    return total;
}

Result<GpuUsage> survey_gpu(const Root& root, unsigned gpu) {
    // A descriptor of our own: OFD locks conflict between open file descriptions, so the test
    // sees every holder, including ones in this very process.
    auto holders = open_file(root.holders_lock(), O_RDONLY);
    if (!holders) return std::unexpected(holders.error());

    GpuUsage usage;
    for (AllocationRecord& record : read_allocations(root, gpu)) {
        AllocationState state;
        state.held = byte_is_held(holders->get(), record.id);
        state.owner_running = state.held && process_running(record.pid, record.start_time_ticks);
        state.record = std::move(record);
        usage.allocations.push_back(std::move(state));
    }
    usage.leaks = read_leaks(root, gpu);
    return usage;
}

void collect_dead(const Root& root, unsigned gpu, const GpuUsage& usage,
                  const StateLock& /*held*/) {
    // A description of our own, closed on return: that releases every byte claimed here.
    auto claims = open_file(root.holders_lock(), O_RDONLY);
    if (!claims) return;  // nothing deleted: the records are only read again
    for (const AllocationState& allocation : usage.allocations) {
        if (allocation.held || !claim_free_byte(claims->get(), allocation.record.id)) continue;
        ::unlink(allocation_path(root, gpu, allocation.record.id).c_str());
    }
}

Result<GpuUsage> survey_gpu_collecting(const Root& root, unsigned gpu) {
    auto usage = survey_gpu(root, gpu);
    if (!usage) return usage;
    const bool any_dead =
        std::any_of(usage->allocations.begin(), usage->allocations.end(),
                    [](const AllocationState& allocation) { return !allocation.held; });
    if (!any_dead) return usage;
    if (const auto lock = StateLock::try_acquire(root)) collect_dead(root, gpu, *usage, *lock);
    return usage;
}

unsigned gpu_utilization_percent(const GpuSpec& gpu, const GpuUsage& usage) {
    unsigned total = gpu.base_utilization_percent.value;
    for (const AllocationState& allocation : usage.allocations) {
        if (allocation.owner_running) total += allocation.record.util_percent;
    }
    return std::min(total, 100U);
}

unsigned memory_utilization_percent(const GpuSpec& gpu, const GpuUsage& usage) {
    return gpu_utilization_percent(gpu, usage) / 2;
}

unsigned sm_clock_mhz(const GpuSpec& gpu, const GpuUsage& usage) {
    const unsigned peak = gpu.sm_clock_mhz.value;
    const unsigned idle = std::min(kIdleSmClockMhz, peak);
    return idle + (peak - idle) * gpu_utilization_percent(gpu, usage) / 100U;
}

double power_draw_watts(const GpuSpec& gpu, const GpuUsage& usage) {
    const double idle = gpu.power_watts.value;
    if (!gpu.power_limit_watts.ok() || gpu.power_limit_watts.value <= idle) return idle;
    const double share = gpu_utilization_percent(gpu, usage) / 100.0;
    return idle + (gpu.power_limit_watts.value - idle) * share;
}

}  // namespace gpusim
