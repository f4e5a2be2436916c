#include "cli/workload.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <vector>

#include "cli/drm_layout.hpp"
#include "cli/kfd_process.hpp"
#include "cli/ledger.hpp"
#include "cli/stop_signals.hpp"
#include "state/files.hpp"
#include "state/proc_identity.hpp"

namespace gpusim {

namespace {

constexpr std::size_t kDeviceMapping = 4096;

// Opens a device node read-write and maps it shared, as the CUDA runtime does, so the process
// shows in /proc/PID/fd and /proc/PID/maps like a real GPU user. The mapping is never touched
// (the files are empty) and stays for the life of the process; so does the descriptor,
// unless `mapping_only`: then it is closed once mapped, and only /proc/PID/maps shows the
// node, as for a process that keeps a GPU client alive by its mapping alone.
Result<void> open_device(const std::filesystem::path& node, bool mapping_only) {
    auto fd = open_file(node, O_RDWR);
    if (!fd) return std::unexpected(fd.error());
    void* mapping =
        ::mmap(nullptr, kDeviceMapping, PROT_READ | PROT_WRITE, MAP_SHARED, fd->get(), 0);
    if (mapping == MAP_FAILED) {
        return fail(kExitFailure, "cannot map " + node.string() + ": " + errno_text(errno));
    }
    if (!mapping_only) fd->release();  // kept open for life; else closed by its owner here
    return {};
}

// SIGKILLs and reaps the workers forked so far, when set-up fails halfway.
void abandon_workers(const std::vector<pid_t>& workers) {
    for (pid_t worker : workers) ::kill(worker, SIGKILL);
    for (pid_t worker : workers) {
        while (::waitpid(worker, nullptr, 0) < 0 && errno == EINTR) {
        }
    }
}

std::string ready_line(const AllocationRecord& record, const std::vector<pid_t>& workers) {
    std::string list;
    for (std::size_t i = 0; i < workers.size(); ++i) {
        list += (i == 0 ? "" : ",") + std::to_string(workers[i]);
    }
    return fmt::format(
        R"({{"pid":{},"start_time_ticks":{},"workers":[{}],"gpu":{},"memory_bytes":{}}})",
        record.pid, record.start_time_ticks, list, record.gpu, record.bytes);
}

// {"pid":P,"start_time_ticks":T,"workers":[...],"drm_gpu":N,"device_files":[...]}
std::string drm_ready_line(std::uint64_t start_time_ticks, const std::vector<pid_t>& workers,
                           unsigned drm_gpu, const std::vector<std::filesystem::path>& nodes) {
    nlohmann::json line{{"pid", ::getpid()},
                        {"start_time_ticks", start_time_ticks},
                        {"workers", workers},
                        {"drm_gpu", drm_gpu},
                        {"device_files", nlohmann::json::array()}};
    for (const auto& node : nodes) line["device_files"].push_back(node.string());
    return line.dump();
}

void stop_after_delay(const WorkloadSpec& spec, const StopSignals& signals, bool reap) {
    signals.wait_for_stop(reap);
    linger(spec.term_delay_seconds);
}

// Opens the NVIDIA nodes and registers the allocation; the ready line's text without the
// workers, which are forked afterwards.
Result<std::function<std::string(const std::vector<pid_t>&)>> use_nvidia_gpu(
    const WorkloadSpec& spec, const SimConfig& config) {
    if (auto gpu = usable_gpu(config, spec.gpu); !gpu) return std::unexpected(gpu.error());
    for (const auto& node : {spec.root.control_node(), spec.root.uvm_node(),
                             spec.root.device_node(config.gpus[spec.gpu].minor)}) {
        if (auto opened = open_device(node, spec.mapping_only); !opened) {
            return std::unexpected(opened.error());
        }
    }
    // The descriptor whose open file description carries the allocation's lock. It is never
    // closed: the kernel drops the lock when the last process sharing it exits.
    auto holders = open_file(spec.root.holders_lock(), O_RDWR);
    if (!holders) return std::unexpected(holders.error());
    auto record = register_allocation(spec.root, config, holders->get(), spec.gpu, spec.bytes,
                                      spec.util_percent);
    if (!record) return std::unexpected(record.error());
    holders->release();
    return [record = *record](const std::vector<pid_t>& workers) {
        return ready_line(record, workers);
    };
}

// Opens a DRM GPU's render node (unless kfd_only), and /dev/kfd on amdgpu; publishes the
// process's kfd entry when asked.
Result<std::function<std::string(const std::vector<pid_t>&)>> use_drm_gpu(const WorkloadSpec& spec,
                                                                          const SimConfig& config) {
    const unsigned index = *spec.drm_gpu;
    if (index >= config.drm_gpus.size()) {
        return fail(kExitDevice, "no DRM GPU " + std::to_string(index) + " (this host has " +
                                     std::to_string(config.drm_gpus.size()) + ")");
    }
    const bool amdgpu = config.drm_gpus[index].driver == "amdgpu";
    if ((spec.kfd_only || spec.kfd_vram_bytes) && !amdgpu) {
        return fail(kExitUsage, "--kfd-only and --kfd-vram need an amdgpu GPU; DRM GPU " +
                                    std::to_string(index) + " is " + config.drm_gpus[index].driver);
    }
    std::vector<std::filesystem::path> nodes;
    if (!spec.kfd_only) nodes.push_back(drm_render_node(spec.root, index));
    if (amdgpu) nodes.push_back(kfd_node(spec.root));
    for (const auto& node : nodes) {
        if (auto opened = open_device(node, spec.mapping_only); !opened) {
            return std::unexpected(opened.error());
        }
    }
    if (spec.kfd_vram_bytes) {
        auto published = publish_kfd_process(spec.root, config, index, *spec.kfd_vram_bytes);
        if (!published) return std::unexpected(published.error());
    }
    auto stat = read_proc_stat(static_cast<int>(::getpid()));
    if (!stat) return fail(kExitFailure, "cannot read this process's start time");
    return [index, nodes, start = stat->start_time_ticks](const std::vector<pid_t>& workers) {
        return drm_ready_line(start, workers, index, nodes);
    };
}

}  // namespace

int run_workload(const WorkloadSpec& spec, ReadyChannel& channel) {
    StopSignals signals;

    auto config = load_config(spec.root);
    if (!config) return channel.error(config.error());
    auto ready_text = spec.drm_gpu ? use_drm_gpu(spec, *config) : use_nvidia_gpu(spec, *config);
    if (!ready_text) return channel.error(ready_text.error());

    signals.install(spec.ignore_term);
    std::fflush(nullptr);
    std::vector<pid_t> workers;
    for (unsigned i = 0; i < spec.workers; ++i) {
        const pid_t worker = ::fork();
        if (worker < 0) {
            const int err = errno;
            abandon_workers(workers);
            return channel.error(Error{kExitFailure, "cannot fork worker: " + errno_text(err)});
        }
        if (worker == 0) {
            // A worker: same descriptors, mappings, name and signal handling as the parent.
            // It does not watch its parent: orphaned workers keeping the GPU busy is the point.
            channel.close_in_worker();
            stop_after_delay(spec, signals, /*reap=*/false);
            ::_exit(kExitOk);
        }
        workers.push_back(worker);
    }

    channel.ready((*ready_text)(workers));
    stop_after_delay(spec, signals, /*reap=*/true);
    return kExitOk;
}

}  // namespace gpusim
