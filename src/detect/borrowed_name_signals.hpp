// Names no user process may hold a GPU under. A kernel thread's name (kworker/0:1,
// ksoftirqd/3, [kthreadd]) on a process that is not a kernel thread: a real one has no
// executable and no open files, so it cannot hold a GPU device (kernel_thread_name). A
// system daemon that never touches a GPU (sshd, cron, dbus-daemon, systemd-*) holding one
// from an executable that is not the system's: outside the system program directories,
// not owned by root, or writable by others (system_daemon_name). The daemon is judged
// by where its program really is (/proc/PID/exe), never by its name alone, so the real
// systemd-logind, which passes DRM devices to compositors, raises nothing. Pure.
#pragma once

#include <sys/types.h>

#include <optional>
#include <vector>

#include "detect/evidence.hpp"
#include "detect/rogue_config.hpp"
#include "model/process.hpp"

namespace gpukill::detect {

// The executable's file as stat(2) on /proc/PID/exe sees it.
struct ExecutableFile {
    uid_t owner_uid = 0;
    bool writable_by_others = false;  // group or world may write it
};

// Kernel threads raise nothing. Without a readable executable the daemon is not judged
// (the kernel-thread name is: the kernel says whether it is one).
std::vector<Evidence> judge_borrowed_names(const ProcessInfo& info,
                                           const std::optional<ExecutableFile>& file,
                                           const RogueConfig& config);

}  // namespace gpukill::detect
