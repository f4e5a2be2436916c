#include "discovery/discover.hpp"

#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <chrono>
#include <set>

#include "discovery/drm_usage_attach.hpp"
#include "discovery/merge.hpp"
#include "host/boot_time.hpp"
#include "host/devfs_nodes.hpp"
#include "host/drm_fdinfo_reader.hpp"
#include "host/fd_sweep.hpp"
#include "host/proc_reader.hpp"
#include "host/process_access.hpp"

namespace gpukill {
namespace {

// "3 processes (PID 1, 42, 77)", "1 process (PID 1)": the count and the PIDs known.
std::string unseen_processes(std::size_t count, const std::vector<pid_t>& pids) {
    std::string text = fmt::format("{} process{}", count, count == 1 ? "" : "es");
    if (pids.empty()) return text;
    text += " (PID " + fmt::format("{}", fmt::join(pids, ", "));
    if (pids.size() < count) text += ", ...";
    return text + ")";
}

std::string host_name() {
    std::array<char, 256> name{};
    if (gethostname(name.data(), name.size() - 1) != 0) return "unknown";
    return name.data();
}

std::int64_t now_unix_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

void read_backends(const std::vector<std::unique_ptr<Backend>>& backends, MergeInputs& inputs) {
    for (const auto& backend : backends) {
        if (backend->status().loaded) {
            for (GpuReading& reading : backend->read_gpus()) {
                inputs.readings.push_back(std::move(reading));
            }
        }
        inputs.backends.push_back(backend->status());
    }
}

// NVIDIA GPU nodes (/dev/nvidiaN) that no NVIDIA GPU of the snapshot has the minor of:
// the driver made them, so GPUs are there, but no backend reports them. A GPU whose minor
// is unknown may be any of them: only when every NVIDIA GPU's minor is known is a node
// left over.
std::vector<std::string> unmatched_device_files(const std::string& devfs,
                                                const std::vector<Gpu>& gpus) {
    std::set<unsigned> minors;
    for (const Gpu& gpu : gpus) {
        if (gpu.reading.vendor != Vendor::nvidia) continue;
        if (!gpu.reading.nvidia_minor) return {};
        minors.insert(*gpu.reading.nvidia_minor);
    }
    std::vector<std::string> unmatched;
    for (const DevfsNode& found : list_gpu_device_nodes(devfs)) {
        if (found.node.kind != DeviceNodeKind::nvidia_gpu || !found.node.nvidia_minor) continue;
        if (!minors.contains(*found.node.nvidia_minor)) unmatched.push_back(found.path);
    }
    return unmatched;
}

}  // namespace

Snapshot discover_gpus(const std::vector<std::unique_ptr<Backend>>& backends) {
    MergeInputs inputs;
    inputs.host = host_name();
    inputs.timestamp_unix_ms = now_unix_ms();
    read_backends(backends, inputs);
    return merge_snapshot(std::move(inputs));
}

namespace {

Snapshot discover_after_sweep(const HostRoots& roots, DiscoveryState* state, MergeInputs inputs,
                              SweepResult sweep, bool own_holds = false) {
    // NVML opens the device nodes inside gpukill itself: it is an observer, not a holder.
    if (!own_holds) {
        std::erase_if(sweep.holders, [](const DeviceHolder& h) { return h.pid == getpid(); });
    }
    inputs.processes_scanned = sweep.processes_scanned;
    inputs.processes_denied = sweep.processes_denied;
    inputs.denied_pids = sweep.denied_pids;
    inputs.processes_unreadable = sweep.processes_unreadable;
    inputs.process_scan_failed = sweep.error.has_value();
    if (sweep.error) {
        inputs.warnings.push_back(
            fmt::format("{}: processes holding GPU device files cannot be found (check --procfs)",
                        sweep.error->what));
    }
    if (sweep.processes_unreadable > 0) {
        inputs.warnings.push_back(fmt::format(
            "the open files of {} could not be read (out of file descriptors or memory); GPU "
            "holders among them are not shown",
            unseen_processes(sweep.processes_unreadable, sweep.unreadable_pids)));
    }
    if (sweep.processes_denied > 0) {
        // What is missing depends on who asks: root needs no "run as root".
        inputs.warnings.push_back(fmt::format(
            "the open files of {} could not be read; GPU holders among them are not shown "
            "({})",
            unseen_processes(sweep.processes_denied, sweep.denied_pids),
            unreadable_processes_advice(read_process_access_facts(roots, sweep.denied_pids))));
    }

    // The DRM drivers' own account of each client: memory and engine time per process.
    const DrmFdinfoReading fdinfo = read_drm_fdinfo(roots, sweep.holders);
    DiscoveryState one_shot;
    DrmUsageTracker& tracker = state != nullptr ? state->drm_usage : one_shot.drm_usage;
    attach_drm_usage(inputs.readings, tracker.update(fdinfo.samples));
    if (!fdinfo.denied.empty()) {
        inputs.warnings.push_back(fmt::format(
            "the DRM usage of {} process{} (fdinfo) could not be read; they are listed with "
            "unknown memory and utilisation ({})",
            fdinfo.denied.size(), fdinfo.denied.size() == 1 ? "" : "es",
            unreadable_processes_advice(read_process_access_facts(roots, fdinfo.denied))));
    }

    // Details only for processes tied to a GPU: reading all of /proc would cost
    // far more than the sweep itself on a busy host.
    std::set<pid_t> wanted;
    for (const DeviceHolder& holder : sweep.holders) wanted.insert(holder.pid);
    for (const GpuReading& reading : inputs.readings) {
        if (!reading.processes) continue;
        for (const DriverProcess& listed : *reading.processes) wanted.insert(listed.pid);
    }
    if (state != nullptr && state->holders) {
        // Events say which processes exec'd; the tracker's full-sweep frames read all.
        inputs.processes = state->process_infos.read(
            roots, wanted, state->holders->details_changed(), state->holders->swept_in_full());
    } else {
        for (pid_t pid : wanted) {
            auto info = read_process(roots, pid);
            if (info) inputs.processes.push_back(std::move(*info));
        }
    }
    inputs.holders = std::move(sweep.holders);
    Snapshot snapshot = merge_snapshot(std::move(inputs));
    mark_orphans(snapshot);
    snapshot.processes_fdinfo_denied = fdinfo.denied.size();
    snapshot.devfs = roots.devfs;
    snapshot.host_pid_namespace = procfs_shows_initial_pid_namespace(roots);
    if (!*snapshot.host_pid_namespace) {
        snapshot.warnings.push_back(fmt::format(
            "{} is not the host's PID namespace (no kernel threads in it): GPU users in other "
            "namespaces are not shown, and the driver lists none of them (run in the host PID "
            "namespace: hostPID: true in Kubernetes)",
            roots.procfs));
    }
    snapshot.unmatched_device_files = unmatched_device_files(roots.devfs, snapshot.gpus);
    if (!snapshot.unmatched_device_files.empty()) {
        snapshot.warnings.push_back(fmt::format(
            "{}: NVIDIA device file{} with no GPU reported behind {} (did the NVIDIA management "
            "library, libnvidia-ml.so.1, load?): gpukill cannot see {} GPU{}",
            fmt::join(snapshot.unmatched_device_files, ", "),
            snapshot.unmatched_device_files.size() == 1 ? "" : "s",
            snapshot.unmatched_device_files.size() == 1 ? "it" : "them",
            snapshot.unmatched_device_files.size() == 1 ? "that" : "those",
            snapshot.unmatched_device_files.size() == 1 ? "" : "s"));
    }
    if (auto boot = read_boot_time_unix(roots)) snapshot.boot_time_unix_s = *boot;
    snapshot.clock_ticks_per_second = clock_ticks_per_second();
    return snapshot;
}

MergeInputs read_gpus_now(const std::vector<std::unique_ptr<Backend>>& backends) {
    MergeInputs inputs;
    inputs.host = host_name();
    inputs.timestamp_unix_ms = now_unix_ms();
    read_backends(backends, inputs);
    return inputs;
}

SweepResult sweep_for_snapshot(const HostRoots& roots, DiscoveryState* state) {
    if (state == nullptr) return sweep_device_holders(roots);
    // Only a session's second snapshot starts the tracker: a one-shot command never
    // pays for its setup.
    if (++state->snapshots >= 2 && !state->holders && !state->holders_untracked) {
        std::string why_not;
        state->holders = HolderTracker::start(roots, kTrackedSnapshotsPerFullSweep, why_not);
        if (state->holders) {
            state->holders->sweep_no_more_often_than(kMinTimeBetweenSafetySweeps);
        } else {
            state->holders_untracked = why_not;
        }
    }
    return state->holders ? state->holders->refresh() : sweep_device_holders(roots);
}

}  // namespace

Snapshot discover(const HostRoots& roots, const std::vector<std::unique_ptr<Backend>>& backends,
                  DiscoveryState* state, bool own_holds) {
    MergeInputs inputs = read_gpus_now(backends);  // first: the sweep then sees at least them
    SweepResult sweep = sweep_for_snapshot(roots, state);
    return discover_after_sweep(roots, state, std::move(inputs), std::move(sweep), own_holds);
}

Snapshot discover_processes(const HostRoots& roots,
                            const std::vector<std::unique_ptr<Backend>>& backends,
                            const std::vector<pid_t>& pids) {
    MergeInputs inputs = read_gpus_now(backends);
    return discover_after_sweep(roots, nullptr, std::move(inputs),
                                sweep_device_holders_of(roots, pids));
}

}  // namespace gpukill
