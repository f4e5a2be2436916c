#include "discovery/merge.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "discovery/kfd_attribution.hpp"
#include "discovery/process_role.hpp"

namespace gpukill {
namespace {

// GPUs without a bus id sort after those with one, in backend order.
bool gpu_order(const GpuReading& a, const GpuReading& b) {
    return std::tuple(!a.pci_bus_id.has_value(), a.pci_bus_id.value_or(""), a.backend,
                      a.backend_index) < std::tuple(!b.pci_bus_id.has_value(),
                                                    b.pci_bus_id.value_or(""), b.backend,
                                                    b.backend_index);
}

// The GPUs a device node belongs to: one for a per-GPU node, none for driver-wide nodes
// such as /dev/nvidiactl and /dev/kfd (kfd_attribution.hpp decides what /dev/kfd means).
std::vector<unsigned> gpus_for_node(const DeviceNode& node, const std::vector<Gpu>& gpus) {
    std::vector<unsigned> matched;
    for (const Gpu& gpu : gpus) {
        const GpuReading& r = gpu.reading;
        bool match = false;
        switch (node.kind) {
            case DeviceNodeKind::nvidia_gpu:
                match = r.vendor == Vendor::nvidia && node.nvidia_minor && r.nvidia_minor &&
                        *node.nvidia_minor == *r.nvidia_minor;
                break;
            case DeviceNodeKind::dri_card:
            case DeviceNodeKind::dri_render:
                match = node.pci_bus_id && r.pci_bus_id && *node.pci_bus_id == *r.pci_bus_id;
                break;
            default:
                break;
        }
        if (match) matched.push_back(gpu.index);
    }
    return matched;
}

ProcessGpuUse& use_of(SnapshotProcess& process, unsigned gpu_index) {
    for (ProcessGpuUse& use : process.gpus) {
        if (use.gpu_index == gpu_index) return use;
    }
    process.gpus.push_back(ProcessGpuUse{.gpu_index = gpu_index});
    return process.gpus.back();
}

}  // namespace

Snapshot merge_snapshot(MergeInputs inputs) {
    Snapshot snapshot;
    snapshot.host = std::move(inputs.host);
    snapshot.timestamp_unix_ms = inputs.timestamp_unix_ms;
    snapshot.warnings = std::move(inputs.warnings);
    snapshot.backends = std::move(inputs.backends);
    snapshot.processes_scanned = inputs.processes_scanned;
    snapshot.processes_denied = inputs.processes_denied;
    snapshot.denied_pids = std::move(inputs.denied_pids);
    snapshot.processes_unreadable = inputs.processes_unreadable;
    snapshot.process_scan_failed = inputs.process_scan_failed;

    std::stable_sort(inputs.readings.begin(), inputs.readings.end(), gpu_order);
    for (GpuReading& reading : inputs.readings) {
        Gpu gpu;
        gpu.index = static_cast<unsigned>(snapshot.gpus.size());
        gpu.reading = std::move(reading);
        snapshot.gpus.push_back(std::move(gpu));
    }

    std::map<pid_t, SnapshotProcess> by_pid;
    auto process_for = [&](pid_t pid) -> SnapshotProcess& {
        SnapshotProcess& process = by_pid[pid];
        process.info.pid = pid;
        return process;
    };

    for (const Gpu& gpu : snapshot.gpus) {
        if (!gpu.reading.processes) continue;
        for (const DriverProcess& listed : *gpu.reading.processes) {
            ProcessGpuUse& use = use_of(process_for(listed.pid), gpu.index);
            use.seen_by.driver = true;
            use.memory_bytes = listed.memory_bytes;
            use.driver_kind = listed.kind;
            use.utilization_percent = listed.utilization_percent;
        }
    }
    for (const DeviceHolder& holder : inputs.holders) {
        SnapshotProcess& process = process_for(holder.pid);
        process.device_nodes = holder.nodes;
        for (const DeviceNode& node : holder.nodes) {
            for (unsigned gpu_index : gpus_for_node(node, snapshot.gpus)) {
                use_of(process, gpu_index).seen_by.device_file = true;
            }
        }
        for (unsigned gpu_index : kfd_only_gpus(process, snapshot.gpus)) {
            ProcessGpuUse& use = use_of(process, gpu_index);
            use.seen_by.device_file = true;
            use.attribution = GpuAttribution::any_amd_gpu;
        }
    }

    std::map<pid_t, ProcessInfo*> details;
    for (ProcessInfo& info : inputs.processes) details[info.pid] = &info;
    std::map<pid_t, std::uint64_t> holder_start;
    for (const DeviceHolder& holder : inputs.holders) {
        if (holder.start_time_ticks) holder_start[holder.pid] = *holder.start_time_ticks;
    }
    for (auto& [pid, process] : by_pid) {
        auto found = details.find(pid);
        auto started = holder_start.find(pid);
        // Details of a different process under a reused PID are not this holder's.
        bool reused = found != details.end() && started != holder_start.end() &&
                      found->second->start_time_ticks != started->second;
        if (found != details.end() && !reused) {
            process.info = std::move(*found->second);
        } else {
            process.info_complete = false;
        }
        std::sort(process.gpus.begin(), process.gpus.end(),
                  [](const ProcessGpuUse& a, const ProcessGpuUse& b) {
                      return a.gpu_index < b.gpu_index;
                  });
        snapshot.processes.push_back(std::move(process));
    }
    assign_roles(snapshot);

    // Used memory minus what the driver's list accounts for: the memory that
    // "nvidia-smi shows no process" for (orphaned workers, leaks).
    for (Gpu& gpu : snapshot.gpus) {
        const GpuReading& r = gpu.reading;
        if (!r.memory_used_bytes || !r.processes || !r.process_list_accounts_memory) continue;
        std::uint64_t attributed = 0;
        bool all_known = true;
        for (const DriverProcess& listed : *r.processes) {
            if (!listed.memory_bytes) {
                all_known = false;
                break;
            }
            attributed += *listed.memory_bytes;
        }
        if (!all_known) continue;
        gpu.unattributed_memory_bytes =
            *r.memory_used_bytes > attributed ? *r.memory_used_bytes - attributed : 0;
    }
    return snapshot;
}

void mark_orphans(Snapshot& snapshot) {
    for (SnapshotProcess& process : snapshot.processes) {
        process.orphaned = process.info_complete && looks_orphaned(process.info);
    }
}

}  // namespace gpukill
