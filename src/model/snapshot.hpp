// One moment of the host: every GPU, every process holding one, and how each
// process-GPU link was seen. Pure data; built by merge.hpp, rendered by the CLI.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/backend_status.hpp"
#include "model/device_node.hpp"
#include "model/gpu.hpp"
#include "model/process.hpp"

namespace gpukill {

// Where a fact about a process-GPU pair came from.
struct SeenBy {
    bool driver = false;       // the driver's process list
    bool device_file = false;  // its device node held: an open fd, or a mapping alone
    friend bool operator==(const SeenBy&, const SeenBy&) = default;
};

// How well a process-GPU tie is known. /dev/kfd is one node for every AMD GPU: holding it
// says "some AMD GPU", so a process whose GPU nothing narrower names is tied to each AMD GPU
// as any_amd_gpu, and nothing that acts on one GPU may treat that tie as known.
enum class GpuAttribution {
    this_gpu,     // the driver lists it here, or it holds this GPU's own device node
    any_amd_gpu,  // holds /dev/kfd, and nothing says which AMD GPU it uses: maybe this one
};

// "this_gpu", "any_amd_gpu": the JSON's `attribution` values.
inline const char* to_string(GpuAttribution attribution) {
    return attribution == GpuAttribution::any_amd_gpu ? "any_amd_gpu" : "this_gpu";
}

struct Gpu {
    unsigned index = 0;  // global index, ordered by PCI address across backends
    GpuReading reading;
    // Memory the driver reports used that no live process in its list accounts for.
    // Empty when unknowable (used memory or a listed process's memory unknown).
    std::optional<std::uint64_t> unattributed_memory_bytes;
    unsigned process_count = 0;   // workloads tied to it (observers are not its users)
    unsigned observer_count = 0;  // observers holding its device file
};

struct ProcessGpuUse {
    unsigned gpu_index = 0;
    std::optional<std::uint64_t> memory_bytes;  // from the driver; empty when unknown or unlisted
    std::optional<DriverProcessKind> driver_kind;
    SeenBy seen_by;
    // Share of the GPU's engine time this process used since the previous sample
    // (DRM fdinfo); empty on a first sample or where the driver does not say.
    std::optional<unsigned> utilization_percent;
    GpuAttribution attribution = GpuAttribution::this_gpu;
    bool known() const { return attribution == GpuAttribution::this_gpu; }
};

// What a GPU holder is to the GPUs it holds (discovery/process_role.hpp decides it).
enum class ProcessRole {
    workload,  // uses a GPU, may use one, or cannot be told apart from one that does
    // Holds NVIDIA device files the way a monitoring client does (the control node and GPU
    // nodes, as NVML opens them) with no context on any GPU, so no GPU memory of its own:
    // nvidia-persistenced, nv-hostengine (DCGM), dcgm-exporter, the device plugin,
    // nvidia-smi, gpukill's own agent. Shown apart; never counted as a GPU's user, never a
    // target of a selector.
    observer,
};

// "workload", "observer": the JSON's `role` values.
inline const char* to_string(ProcessRole role) {
    return role == ProcessRole::observer ? "observer" : "workload";
}

struct SnapshotProcess {
    ProcessInfo info;
    bool info_complete = true;        // false when /proc details were unreadable (exited?)
    std::vector<ProcessGpuUse> gpus;  // GPUs it is tied to, by driver list or device file
    // Every GPU device node it holds, open or mapped (DeviceNode::access says which).
    std::vector<DeviceNode> device_nodes;
    // Re-parented after its parent died (see looks_orphaned): the DataLoader worker
    // left behind by `kill -9` on its trainer.
    bool orphaned = false;
    ProcessRole role = ProcessRole::workload;
    bool observer() const { return role == ProcessRole::observer; }
};

// A process whose parent died and that was re-parented to init. A daemon or a
// systemd service (each its own session leader) is not orphaned though its parent
// is PID 1. Re-parenting to a subreaper (tini, systemd --user) cannot be told
// from /proc and is not detected.
bool looks_orphaned(const ProcessInfo& info);

struct Snapshot {
    std::string host;
    std::int64_t timestamp_unix_ms = 0;
    std::vector<Gpu> gpus;
    std::vector<SnapshotProcess> processes;  // sorted by PID
    std::string devfs = "/dev";              // where device_nodes' relative paths live
    // To turn start_time_ticks into wall time: btime from /proc/stat and CLK_TCK.
    std::optional<std::int64_t> boot_time_unix_s;
    long clock_ticks_per_second = 100;
    std::vector<BackendStatus> backends;
    // How much of the host the fd sweep could see: without privilege, other users'
    // open files are unreadable, so their device holders are missing.
    std::size_t processes_scanned = 0;
    std::size_t processes_denied = 0;
    std::vector<pid_t> denied_pids;        // the first few of them, to say which and why
    std::size_t processes_unreadable = 0;  // fd directories unreadable for other reasons
    // DRM holders listed, but whose fdinfo (the driver's per-client usage) was not
    // readable: their memory and utilisation are unknown.
    std::size_t processes_fdinfo_denied = 0;
    bool process_scan_failed = false;  // procfs itself could not be listed
    // Whether the procfs read is the host's initial PID namespace (host/proc_reader.hpp):
    // false in a pod without hostPID or a container, where other namespaces' GPU users are
    // invisible and the driver lists none of them. Unknown when not looked at.
    std::optional<bool> host_pid_namespace;
    // GPU device files under the device root that no GPU here accounts for: /dev/nvidia0
    // with no NVIDIA GPU listed (the NVIDIA management library did not load). GPUs gpukill
    // cannot see.
    std::vector<std::string> unmatched_device_files;
    std::vector<std::string> warnings;  // one line each
};

// The GPU with gpukill's index `index`, or null.
inline const Gpu* find_gpu(const Snapshot& snapshot, unsigned index) {
    for (const Gpu& gpu : snapshot.gpus) {
        if (gpu.index == index) return &gpu;
    }
    return nullptr;
}

}  // namespace gpukill
