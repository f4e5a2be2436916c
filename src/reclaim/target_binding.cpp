#include "reclaim/target_binding.hpp"

#include <signal.h>

#include <cerrno>
#include <cstring>

#include "host/pidfd.hpp"
#include "host/proc_parse.hpp"
#include "host/proc_reader.hpp"

namespace gpukill::reclaim {
namespace {

struct StatRead {
    std::optional<ProcStat> stat;  // empty: no such process
    std::optional<Error> error;    // unreadable for another reason
};

StatRead read_stat(const HostRoots& roots, pid_t pid) {
    auto text = read_text_file(roots.procfs + "/" + std::to_string(pid) + "/stat");
    if (!text) {
        const int e = text.error().errno_value;
        if (e == ENOENT || e == ESRCH) return {};
        return {.stat = std::nullopt, .error = text.error()};
    }
    auto stat = parse_proc_stat(*text);
    if (!stat) return {.stat = std::nullopt, .error = stat.error()};
    return {.stat = std::move(*stat), .error = std::nullopt};
}

bool is_zombie(char state) {
    return state == 'Z' || state == 'X';
}

}  // namespace

Binding bind_process(const ProcessIdentity& identity, const HostRoots& roots, bool use_pidfd) {
    Binding binding;
    binding.process.identity = identity;
    if (use_pidfd) {
        const int fd = pidfd_open_process(identity.pid);
        if (fd >= 0) {
            binding.process.pidfd = UniqueFd(fd);
        } else if (errno == ESRCH) {
            binding.status = BindStatus::gone;
            return binding;
        } else if (errno != ENOSYS && errno != EMFILE && errno != ENFILE) {
            binding.note = std::string("pidfd_open failed: ") + std::strerror(errno);
            return binding;
        }
    }
    const StatRead read = read_stat(roots, identity.pid);
    if (read.error) {
        binding.note = read.error->errno_value == EMFILE || read.error->errno_value == ENFILE
                           ? "gpukill ran out of file descriptors (" + read.error->what +
                                 "); raise the limit (ulimit -n) and try again"
                           : read.error->what;
        return binding;
    }
    if (!read.stat) {
        binding.status = BindStatus::gone;
    } else if (read.stat->start_time_ticks != identity.start_time_ticks) {
        binding.status = BindStatus::reused;
        binding.note = "PID reused by another process";
    } else if (is_zombie(read.stat->state)) {
        binding.status = BindStatus::zombie;
    } else {
        binding.status = BindStatus::bound;
        binding.process.state = read.stat->state;
    }
    if (binding.status != BindStatus::bound) binding.process.pidfd = UniqueFd();
    return binding;
}

SendResult send_signal(const BoundProcess& process, const HostRoots& roots, int signal) {
    int rc = 0;
    if (process.pidfd) {
        rc = pidfd_signal(process.pidfd.get(), signal);
    } else {
        // No pidfd: the identity is checked right before kill(), the narrowest window
        // available without one.
        const StatRead read = read_stat(roots, process.identity.pid);
        if (!read.stat || read.stat->start_time_ticks != process.identity.start_time_ticks) {
            if (read.error) return {.status = SendStatus::failed, .error = read.error->errno_value};
            return {.status = SendStatus::exited};
        }
        rc = ::kill(process.identity.pid, signal);
    }
    if (rc == 0) return {.status = SendStatus::sent};
    if (errno == ESRCH) return {.status = SendStatus::exited};
    if (errno == EPERM) return {.status = SendStatus::denied, .error = EPERM};
    return {.status = SendStatus::failed, .error = errno};
}

std::optional<LiveState> live_state(const ProcessIdentity& identity, const HostRoots& roots) {
    const StatRead read = read_stat(roots, identity.pid);
    // Unreadable for another reason: report it as alive in an unknown state rather than
    // claim an exit that was not seen.
    if (read.error) return LiveState{};
    if (!read.stat || read.stat->start_time_ticks != identity.start_time_ticks ||
        is_zombie(read.stat->state)) {
        return std::nullopt;
    }
    return LiveState{.state = read.stat->state, .ppid = read.stat->ppid};
}

std::optional<pid_t> unreaped_zombie_parent(const ProcessIdentity& identity,
                                            const HostRoots& roots) {
    const StatRead read = read_stat(roots, identity.pid);
    if (!read.stat || read.stat->start_time_ticks != identity.start_time_ticks ||
        read.stat->state != 'Z') {
        return std::nullopt;
    }
    return read.stat->ppid;
}

}  // namespace gpukill::reclaim
