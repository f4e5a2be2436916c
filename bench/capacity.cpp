#include "capacity.hpp"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>

namespace gpukill::bench {
namespace {

// Room for the benchmark's own subprocesses (gpukill, fuser, the floor) and slack for
// whatever else starts on the host while it runs.
constexpr std::size_t kHeadroom = 64;

std::optional<long long> read_number(const std::string& path) {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text)) return std::nullopt;
    long long value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;  // "max"
    return value;
}

std::size_t count_processes() {
    std::size_t count = 0;
    if (DIR* proc = ::opendir("/proc")) {
        while (const dirent* entry = ::readdir(proc)) {
            if (entry->d_name[0] >= '1' && entry->d_name[0] <= '9') ++count;
        }
        ::closedir(proc);
    }
    return count;
}

// The pids cgroup this process is in: "pids" in cgroup v1, the unified tree in v2.
std::optional<std::string> pids_cgroup_dir() {
    std::ifstream in("/proc/self/cgroup");
    std::optional<std::string> unified;
    for (std::string line; std::getline(in, line);) {
        const auto first = line.find(':');
        const auto second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos) continue;
        const std::string_view controllers(line.data() + first + 1, second - first - 1);
        const std::string path = line.substr(second + 1);
        if (controllers == "pids") return "/sys/fs/cgroup/pids" + path;
        if (controllers.empty()) unified = "/sys/fs/cgroup" + path;
    }
    return unified;
}

}  // namespace

std::string capacity_problems(std::size_t processes, std::size_t fds_each) {
    std::ostringstream out;
    const auto needed = static_cast<long long>(processes + kHeadroom);
    const auto existing = static_cast<long long>(count_processes());

    rlimit nproc{};
    // Root (CAP_SYS_RESOURCE/CAP_SYS_ADMIN) is exempt from RLIMIT_NPROC.
    if (::geteuid() != 0 && ::getrlimit(RLIMIT_NPROC, &nproc) == 0 &&
        nproc.rlim_cur != RLIM_INFINITY && static_cast<long long>(nproc.rlim_cur) < needed) {
        out << "ulimit -u is " << nproc.rlim_cur << ", the benchmark needs at least " << needed
            << " processes for this user on top of those it already runs (raise it: ulimit -u "
            << needed * 2 << ")\n";
    }

    if (const auto pid_max = read_number("/proc/sys/kernel/pid_max");
        pid_max && *pid_max - existing < needed) {
        out << "kernel.pid_max is " << *pid_max << " with " << existing
            << " processes running; the benchmark needs " << needed
            << " more (sysctl kernel.pid_max)\n";
    }
    if (const auto threads_max = read_number("/proc/sys/kernel/threads-max");
        threads_max && *threads_max - existing < needed) {
        out << "kernel.threads-max is " << *threads_max << "; the benchmark needs " << needed
            << " more tasks (sysctl kernel.threads-max)\n";
    }

    if (const auto dir = pids_cgroup_dir()) {
        const auto max = read_number(*dir + "/pids.max");
        const auto current = read_number(*dir + "/pids.current");
        if (max && current && *max - *current < needed) {
            out << "the pids cgroup " << *dir << " allows " << *max << " tasks and holds "
                << *current << "; the benchmark needs " << needed << " more\n";
        }
    }

    rlimit nofile{};
    if (::getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY &&
        nofile.rlim_cur < fds_each + 16) {
        out << "ulimit -n is " << nofile.rlim_cur << ", each process needs " << fds_each + 16
            << " (ulimit -n)\n";
    }
    return out.str();
}

}  // namespace gpukill::bench
