#pragma once
// The writer side of the simulator's state. Every gpusim command that changes state does it
// under DIR/gpusim/state.lock (flock), so capacity checks, id assignment and garbage
// collection never race each other (state/state_lock.hpp). The NVML library reads without
// waiting for the lock, and deletes dead records only when it gets the lock at once.

#include <cstdint>

#include "state/config.hpp"
#include "state/error.hpp"
#include "state/files.hpp"
#include "state/records.hpp"
#include "state/root.hpp"
#include "state/state_lock.hpp"
#include "state/usage.hpp"

namespace gpusim {

// The GPU `gpu` of `config`, or kExitDevice the way CUDA refuses a bad ordinal or a lost GPU.
Result<const GpuSpec*> usable_gpu(const SimConfig& config, unsigned gpu);

// Registers an allocation for the calling process: checks capacity (kExitDevice when it does
// not fit, like cudaErrorMemoryAllocation), locks the allocation's byte through `holders_fd`
// and only then writes the record. Collects dead records of the GPU on the way.
Result<AllocationRecord> register_allocation(const Root& root, const SimConfig& config,
                                             int holders_fd, unsigned gpu, std::uint64_t bytes,
                                             unsigned util_percent);

// Records memory that no process holds (a driver leak), subject to the same capacity check.
Result<LeakRecord> register_leak(const Root& root, const SimConfig& config, unsigned gpu,
                                 std::uint64_t bytes);

struct ResetOutcome {
    std::uint64_t freed_bytes = 0;
    std::size_t allocations_dropped = 0;
    std::size_t leaks_dropped = 0;
};

// Clears a GPU's leaks and allocation records, as a GPU reset does. Refuses (kExitDevice)
// while running processes hold allocations, unless `force`.
Result<ResetOutcome> reset_gpu(const Root& root, const SimConfig& config, unsigned gpu, bool force);

}  // namespace gpusim
