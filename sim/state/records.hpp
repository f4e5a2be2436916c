#pragma once
// Allocation and leak records: one small JSON file each, written atomically after the
// allocation's holder lock is taken, so a reader never sees a record without its lock.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "state/error.hpp"
#include "state/root.hpp"

namespace gpusim {

struct AllocationRecord {
    std::uint64_t id = 0;  // also the byte of holders.lock that the allocation's holders lock
    unsigned gpu = 0;
    int pid = 0;                         // the allocating process, as the driver reports it
    std::uint64_t start_time_ticks = 0;  // /proc/PID/stat field 22: tells a recycled pid apart
    std::uint64_t bytes = 0;
    unsigned util_percent = 0;
};

// Memory the driver lost track of: no process, counted until a reset.
struct LeakRecord {
    std::uint64_t id = 0;
    unsigned gpu = 0;
    std::uint64_t bytes = 0;
};

std::filesystem::path allocation_path(const Root& root, unsigned gpu, std::uint64_t id);
std::filesystem::path leak_path(const Root& root, unsigned gpu, std::uint64_t id);

Result<void> write_allocation(const Root& root, const AllocationRecord& record);
Result<void> write_leak(const Root& root, const LeakRecord& record);

// The records of one GPU, by id. Files that vanish while listing (collected concurrently),
// temporaries and unreadable files are skipped: a reader must never fail on a writer's race.
std::vector<AllocationRecord> read_allocations(const Root& root, unsigned gpu);
std::vector<LeakRecord> read_leaks(const Root& root, unsigned gpu);

}  // namespace gpusim
