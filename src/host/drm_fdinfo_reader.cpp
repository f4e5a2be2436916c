#include "host/drm_fdinfo_reader.hpp"

#include <fcntl.h>
#include <time.h>

#include <cerrno>

#include "host/proc_parse.hpp"
#include "sys/fd_io.hpp"

namespace gpukill {
namespace {

std::int64_t monotonic_now_ns() {
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

bool is_denial(int errno_value) {
    return errno_value == EACCES || errno_value == EPERM;
}

// The holder's /proc/PID directory, if that PID is still the process the sweep saw.
std::optional<UniqueFd> open_same_process(const HostRoots& roots, const DeviceHolder& holder) {
    const std::string dir = roots.procfs + "/" + std::to_string(holder.pid);
    auto proc_dir = open_dir_at(AT_FDCWD, dir.c_str());
    if (!proc_dir) return std::nullopt;  // exited since the sweep
    if (holder.start_time_ticks) {
        auto stat_text = read_file_at(proc_dir->get(), "stat");
        if (!stat_text) return std::nullopt;
        auto stat = parse_proc_stat(*stat_text);
        if (!stat || stat->start_time_ticks != *holder.start_time_ticks) return std::nullopt;
    }
    return std::move(*proc_dir);
}

}  // namespace

DrmFdinfoReading read_drm_fdinfo(const HostRoots& roots, const std::vector<DeviceHolder>& holders) {
    DrmFdinfoReading reading;
    for (const DeviceHolder& holder : holders) {
        if (holder.drm_fds.empty()) continue;
        auto proc_dir = open_same_process(roots, holder);
        if (!proc_dir) continue;
        for (const DrmFd& drm_fd : holder.drm_fds) {
            const std::string path = "fdinfo/" + std::to_string(drm_fd.fd);
            auto text = read_file_at(proc_dir->get(), path.c_str());
            const std::int64_t read_at = monotonic_now_ns();
            if (!text) {
                if (is_denial(text.error().errno_value)) {
                    reading.denied.push_back(holder.pid);
                    break;  // the same answer for every other fd of this process
                }
                continue;  // ENOENT: closed since the sweep
            }
            auto client = parse_drm_fdinfo(*text);
            if (!client) continue;
            std::optional<std::string> node_bus_id;
            if (drm_fd.node_index < holder.nodes.size()) {
                node_bus_id = holder.nodes[drm_fd.node_index].pci_bus_id;
            }
            reading.samples.push_back(DrmClientSample{holder.pid, drm_fd.fd, std::move(node_bus_id),
                                                      read_at, std::move(*client)});
        }
    }
    return reading;
}

}  // namespace gpukill
