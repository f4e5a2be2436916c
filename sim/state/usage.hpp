#pragma once
// What a GPU is doing right now, computed from the records, the holder locks and /proc.
// Surveys are read-only and safe from any number of processes at once; deleting the records
// of allocations nobody holds any more (collect_dead) happens under the state lock only.

#include <cstdint>
#include <vector>

#include "state/config.hpp"
#include "state/records.hpp"
#include "state/root.hpp"
#include "state/state_lock.hpp"

namespace gpusim {

struct AllocationState {
    AllocationRecord record;
    bool held = false;           // some process still has the allocating descriptor open
    bool owner_running = false;  // the allocating process itself is alive (same start time)
};

struct GpuUsage {
    std::vector<AllocationState> allocations;  // every record, dead ones included
    std::vector<LeakRecord> leaks;

    std::uint64_t held_bytes() const;
    std::uint64_t leaked_bytes() const;
    // Memory in use outside the driver's reservation: held allocations plus leaks.
    std::uint64_t used_bytes() const { return held_bytes() + leaked_bytes(); }
};

// Reads GPU `gpu`'s records and tests each allocation's lock and owner.
Result<GpuUsage> survey_gpu(const Root& root, unsigned gpu);

// Deletes the records of `usage`'s allocations that nobody holds: their memory is already
// free and, ids never being reused, no one will hold them again. Each is deleted while this
// process holds a read lock on its byte, which it gets only when no holder is left, and
// `held` (the state lock) keeps every writer out meanwhile.
void collect_dead(const Root& root, unsigned gpu, const GpuUsage& usage, const StateLock& held);

// survey_gpu for readers that query often (the NVML library): when the survey finds dead
// records and the state lock is free at once, it collects them, so later queries do not read
// them again. It never waits: a busy lock means a writer, which collects them itself. The
// answer is the survey's, so memory used is the same whether or not anything was deleted.
Result<GpuUsage> survey_gpu_collecting(const Root& root, unsigned gpu);

// Utilisation in percent: the GPU's base plus --util of every allocation whose allocating
// process is running (orphaned workers hold memory but launch no kernels), at most 100.
unsigned gpu_utilization_percent(const GpuSpec& gpu, const GpuUsage& usage);
// Memory-controller utilisation: half the compute figure, a typical ratio for training.
unsigned memory_utilization_percent(const GpuSpec& gpu, const GpuUsage& usage);
// The SM clock: kIdleSmClockMhz (an H100's idle clock, or the peak when that is lower)
// at 0 %, rising linearly with utilisation to the scenario's sm_clock_mhz at 100 %.
inline constexpr unsigned kIdleSmClockMhz = 345;
unsigned sm_clock_mhz(const GpuSpec& gpu, const GpuUsage& usage);
// Board power: idle draw plus the share of the headroom that the utilisation uses.
double power_draw_watts(const GpuSpec& gpu, const GpuUsage& usage);

}  // namespace gpusim
