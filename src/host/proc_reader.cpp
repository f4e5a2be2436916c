// Reads processes from procfs. Every file of one process is read relative to a single
// open /proc/PID directory: that fd stays bound to the process it was opened for, so if
// the process exits and its PID is reused, reads fail instead of mixing two processes.
#include "host/proc_reader.hpp"

#include <dirent.h>
#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "host/proc_parse.hpp"
#include "model/parse_util.hpp"
#include "sys/fd_io.hpp"

namespace gpukill {
namespace {

constexpr unsigned kPfKthread = 0x00200000;  // PF_KTHREAD, include/linux/sched.h

// ENOENT/ESRCH on a file of an open /proc/PID directory: the process has exited.
bool is_gone(const Error& error) {
    return error.errno_value == ENOENT || error.errno_value == ESRCH;
}

std::string pid_dir(const HostRoots& roots, pid_t pid) {
    return roots.procfs + "/" + std::to_string(pid);
}

// Re-labels an error from a path relative to the pid directory with the full path.
Error with_path(const Error& error, const std::string& dir, const char* name) {
    return os_error("cannot read " + dir + "/" + name, error.errno_value);
}

Result<ProcStat> read_stat_at(int dir_fd, const std::string& dir) {
    auto text = read_file_at(dir_fd, "stat");
    if (!text) return std::unexpected(with_path(text.error(), dir, "stat"));
    auto stat = parse_proc_stat(*text);
    if (!stat) return fail(dir + "/stat: " + stat.error().what);
    return stat;
}

}  // namespace

Result<std::vector<pid_t>> list_pids(const HostRoots& roots) {
    DIR* dir = ::opendir(roots.procfs.c_str());
    if (dir == nullptr) return std::unexpected(os_error("cannot list " + roots.procfs, errno));

    std::vector<pid_t> pids;
    errno = 0;
    while (const dirent* entry = ::readdir(dir)) {
        const std::string_view name = entry->d_name;
        if (!text::is_canonical_decimal(name)) continue;  // "self", "sys", "irq", ...
        if (auto pid = text::parse_int<pid_t>(name); pid && *pid > 0) pids.push_back(*pid);
    }
    const int read_errno = errno;
    ::closedir(dir);
    if (read_errno != 0)
        return std::unexpected(os_error("cannot list " + roots.procfs, read_errno));

    std::sort(pids.begin(), pids.end());
    return pids;
}

Result<ProcessInfo> read_process(const HostRoots& roots, pid_t pid) {
    const std::string dir = pid_dir(roots, pid);
    auto dir_fd = open_dir_at(AT_FDCWD, dir.c_str());
    if (!dir_fd) return std::unexpected(os_error("cannot open " + dir, dir_fd.error().errno_value));
    const int fd = dir_fd->get();

    auto stat = read_stat_at(fd, dir);
    if (!stat) return std::unexpected(stat.error());

    ProcessInfo info;
    apply_process_stat(*stat, info);
    info.pid = pid;

    // Optional files: a permission error leaves the field unknown. ENOENT may mean the
    // process exited, or just that this file has no answer (exe of a kernel thread or a
    // zombie); a second look at stat below tells which.
    bool maybe_gone = false;
    auto note = [&](const Error& error) { maybe_gone = maybe_gone || is_gone(error); };

    if (auto status = read_file_at(fd, "status")) {
        auto parsed = parse_proc_status(*status);
        info.uid = parsed.real_uid;
        info.nspid = std::move(parsed.nspid);
    } else {
        note(status.error());
    }
    if (auto cmdline = read_file_at(fd, "cmdline")) {
        info.cmdline = parse_proc_cmdline(*cmdline);
    } else {
        note(cmdline.error());
    }
    if (auto cgroup = read_file_at(fd, "cgroup")) {
        info.container = parse_proc_cgroup(*cgroup);
        info.slurm_job = parse_slurm_job(*cgroup);
    } else {
        note(cgroup.error());
    }
    if (auto exe = read_link_at(fd, "exe")) {
        auto link = parse_exe_link(*exe);
        info.exe = std::move(link.path);
        info.exe_deleted = link.deleted;
    } else {
        note(exe.error());
    }

    if (maybe_gone) {
        auto again = read_file_at(fd, "stat");
        if (!again && is_gone(again.error())) {
            return fail("process " + std::to_string(pid) + " exited while being read", ESRCH);
        }
    }

    if (info.uid) info.user = user_name(*info.uid);
    return info;
}

Result<pid_t> read_thread_group(const HostRoots& roots, pid_t pid) {
    const std::string path = pid_dir(roots, pid) + "/status";
    auto text = read_text_file(path);
    if (!text) return std::unexpected(text.error());
    auto tgid = parse_proc_status(*text).tgid;
    if (!tgid) return fail(path + ": no Tgid line");
    return *tgid;
}

void apply_process_stat(const ProcStat& stat, ProcessInfo& info) {
    info.pid = stat.pid;
    info.ppid = stat.ppid;
    info.pgid = stat.pgid;
    info.sid = stat.sid;
    info.comm = stat.comm;
    info.state = stat.state;
    info.start_time_ticks = stat.start_time_ticks;
    info.kernel_thread = (stat.flags & kPfKthread) != 0;
}

bool procfs_shows_initial_pid_namespace(const HostRoots& roots) {
    constexpr pid_t kThreadd = 2;
    auto stat = read_process_stat(roots, kThreadd);
    return stat && (stat->flags & kPfKthread) != 0;
}

Result<ProcStat> read_process_stat(const HostRoots& roots, pid_t pid) {
    const std::string path = pid_dir(roots, pid) + "/stat";
    auto text = read_file_at(AT_FDCWD, path.c_str());
    if (!text) return std::unexpected(os_error("cannot read " + path, text.error().errno_value));
    auto stat = parse_proc_stat(*text);
    if (!stat) return fail(path + ": " + stat.error().what);
    return stat;
}

Result<std::uint64_t> read_start_time(const HostRoots& roots, pid_t pid) {
    auto stat = read_process_stat(roots, pid);
    if (!stat) return std::unexpected(stat.error());
    return stat->start_time_ticks;
}

Result<std::string> read_text_file(const std::string& path) {
    auto text = read_file_at(AT_FDCWD, path.c_str());
    if (!text) return std::unexpected(os_error("cannot read " + path, text.error().errno_value));
    return text;
}

}  // namespace gpukill
