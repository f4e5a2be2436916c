// Merging what the backends and the host report into one Snapshot. Pure: the
// inputs are values already read, so every case is tested without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/device_node.hpp"
#include "model/gpu.hpp"
#include "model/process.hpp"
#include "model/snapshot.hpp"

namespace gpukill {

struct MergeInputs {
    std::string host;
    std::int64_t timestamp_unix_ms = 0;
    std::vector<GpuReading> readings;   // from every backend, any order
    std::vector<DeviceHolder> holders;  // from the fd sweep
    // Details of every holder and driver-listed PID that could be read; a PID
    // missing here is shown with what is known and info_complete = false.
    std::vector<ProcessInfo> processes;
    std::vector<BackendStatus> backends;
    std::size_t processes_scanned = 0;
    std::size_t processes_denied = 0;
    std::vector<pid_t> denied_pids;        // the first few of them
    std::size_t processes_unreadable = 0;  // fd directories unreadable for other reasons
    bool process_scan_failed = false;      // procfs itself could not be listed
    std::vector<std::string> warnings;
};

// GPUs get one global numbering ordered by PCI address (NVML's own order on
// NVIDIA-only hosts, so indices match nvidia-smi). Device nodes map to GPUs by
// NVIDIA minor number or, for DRM nodes, by PCI address.
Snapshot merge_snapshot(MergeInputs inputs);

// Sets `orphaned` on every holder whose details were read and that looks re-parented
// after its parent died (looks_orphaned): the last step of a discovery.
void mark_orphans(Snapshot& snapshot);

}  // namespace gpukill
