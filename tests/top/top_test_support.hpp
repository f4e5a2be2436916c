// Snapshots for the monitor's model tests: a host with GPUs and holders written out in a
// line each, the way a person would describe it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/snapshot.hpp"
#include "top/rows.hpp"

namespace gpukill::top_test {

inline constexpr std::uint64_t kGiB = 1ULL << 30;

struct Holder {
    pid_t pid;
    pid_t ppid;
    std::string user;
    uid_t uid;
    std::string comm;
    unsigned gpu;
    std::optional<std::uint64_t> memory;  // empty: not in the driver's list (file only)
    bool orphaned = false;
};

inline Snapshot host_with(const std::vector<Holder>& holders, unsigned gpus = 2,
                          std::optional<std::uint64_t> unaccounted_on_gpu0 = std::nullopt) {
    Snapshot snapshot;
    snapshot.host = "node1";
    snapshot.timestamp_unix_ms = 1'000'000'000;
    snapshot.boot_time_unix_s = 1'000'000 - 3600;
    for (unsigned i = 0; i < gpus; ++i) {
        Gpu gpu;
        gpu.index = i;
        gpu.reading.name = "Simulated GPU";
        gpu.reading.memory_total_bytes = 80 * kGiB;
        gpu.reading.memory_used_bytes = 10 * kGiB;
        gpu.reading.utilization_percent = 40;
        if (i == 0) gpu.unattributed_memory_bytes = unaccounted_on_gpu0;
        snapshot.gpus.push_back(gpu);
    }
    for (const Holder& h : holders) {
        SnapshotProcess process;
        process.info.pid = h.pid;
        process.info.ppid = h.ppid;
        process.info.user = h.user;
        process.info.uid = h.uid;
        process.info.comm = h.comm;
        process.info.cmdline = {h.comm, "--rank", std::to_string(h.pid)};
        process.info.start_time_ticks = 1000 + static_cast<std::uint64_t>(h.pid);
        process.orphaned = h.orphaned;
        ProcessGpuUse use;
        use.gpu_index = h.gpu;
        use.memory_bytes = h.memory;
        use.seen_by = {.driver = h.memory.has_value(), .device_file = true};
        process.gpus.push_back(use);
        snapshot.processes.push_back(process);
    }
    return snapshot;
}

inline std::vector<top::Row> rows_of(const Snapshot& snapshot,
                                     top::Viewer viewer = {.uid = 0, .privileged = true}) {
    return top::build_rows(snapshot, {}, {}, 0, viewer);
}

}  // namespace gpukill::top_test
