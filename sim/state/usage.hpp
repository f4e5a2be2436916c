#pragma once
// What a GPU is doing right now, computed from the records, the holder locks and /proc.
// Read-only: safe from any number of processes at once (the NVML library calls it per query).

#include <cstdint>
#include <vector>

#include "state/config.hpp"
#include "state/records.hpp"
#include "state/root.hpp"

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

// Utilisation in percent: the GPU's base plus --util of every allocation whose allocating
// process is running (orphaned workers hold memory but launch no kernels), at most 100.
unsigned gpu_utilization_percent(const GpuSpec& gpu, const GpuUsage& usage);
// Memory-controller utilisation: half the compute figure, a typical ratio for training.
unsigned memory_utilization_percent(const GpuSpec& gpu, const GpuUsage& usage);
// Board power: idle draw plus the share of the headroom that the utilisation uses.
double power_draw_watts(const GpuSpec& gpu, const GpuUsage& usage);

}  // namespace gpusim
