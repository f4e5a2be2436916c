// ROCm compute processes, from the AMD compute driver's sysfs: for each process that
// opened /dev/kfd, SYSFS/class/kfd/kfd/proc/<pid>/ holds vram_<gpu_id> (bytes of VRAM the
// process has on that GPU) and queues/<id>/gpuid (a queue it submits work through).
// kfd creates vram_<gpu_id> for every GPU the process may use, so a process counts on a
// GPU only where it has VRAM there or a queue: otherwise each ROCm process would appear
// on every GPU of the node. Partitions of one GPU (MI300 CPX) add up to that GPU.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "model/gpu.hpp"
#include "model/host_roots.hpp"
#include "model/result.hpp"

namespace gpukill::drm {

// The gpu_id of a "vram_<gpu_id>" file name; empty for any other name. Pure.
std::optional<std::uint32_t> kfd_vram_file_gpu_id(std::string_view name);

// One process's kfd usage, before it is mapped to PCI devices.
struct KfdProcessUsage {
    pid_t pid = 0;
    std::map<std::uint32_t, std::uint64_t> vram_bytes_by_gpu_id;
    std::map<std::uint32_t, unsigned> queues_by_gpu_id;
};

// The compute processes on each GPU, keyed by PCI bus id, from per-process usage and the
// topology's gpu_id -> PCI bus id map. Each process once per GPU, ordered by PID. Pure.
std::map<std::string, std::vector<DriverProcess>> kfd_processes_by_gpu(
    const std::vector<KfdProcessUsage>& usage, const std::map<std::uint32_t, std::string>& gpu_ids);

// Reads SYSFS/class/kfd/kfd/proc. No kfd on the host: no processes. A process that ends
// while it is read is left out. An error when the directory or a file in it that exists
// cannot be read (then the process list is unknown).
Result<std::vector<KfdProcessUsage>> read_kfd_process_usage(const HostRoots& roots);

}  // namespace gpukill::drm
