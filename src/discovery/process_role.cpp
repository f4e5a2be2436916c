#include "discovery/process_role.hpp"

#include <algorithm>

namespace gpukill {
namespace {

// The nodes an NVML client opens (process_role.hpp says why these and no others).
bool monitoring_node(const DeviceNode& node) {
    switch (node.kind) {
        case DeviceNodeKind::nvidia_ctl:
        case DeviceNodeKind::nvidia_gpu:
        case DeviceNodeKind::nvidia_caps:
            return true;
        default:
            return false;
    }
}

bool driver_list_read(const std::vector<Gpu>& gpus, unsigned index) {
    const auto gpu = std::find_if(gpus.begin(), gpus.end(),
                                  [&](const Gpu& candidate) { return candidate.index == index; });
    return gpu != gpus.end() && gpu->reading.vendor == Vendor::nvidia &&
           gpu->reading.processes.has_value();
}

}  // namespace

ProcessRole process_role(const SnapshotProcess& process, const std::vector<Gpu>& gpus) {
    if (process.device_nodes.empty()) return ProcessRole::workload;  // seen by a driver only
    if (!std::all_of(process.device_nodes.begin(), process.device_nodes.end(), monitoring_node)) {
        return ProcessRole::workload;
    }
    for (const ProcessGpuUse& use : process.gpus) {
        if (use.seen_by.driver || !driver_list_read(gpus, use.gpu_index)) {
            return ProcessRole::workload;
        }
    }
    return ProcessRole::observer;
}

void assign_roles(Snapshot& snapshot) {
    for (Gpu& gpu : snapshot.gpus) {
        gpu.process_count = 0;
        gpu.observer_count = 0;
    }
    for (SnapshotProcess& process : snapshot.processes) {
        process.role = process_role(process, snapshot.gpus);
        for (const ProcessGpuUse& use : process.gpus) {
            for (Gpu& gpu : snapshot.gpus) {
                if (gpu.index != use.gpu_index) continue;
                ++(process.observer() ? gpu.observer_count : gpu.process_count);
            }
        }
    }
}

}  // namespace gpukill
