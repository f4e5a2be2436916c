// Gathering the SafetyContext from the running process and the host: the effectful half
// of the safety rules (check_safety in safety_check.hpp is the pure half).
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <set>
#include <string_view>

#include "model/host_roots.hpp"
#include "reclaim/select.hpp"

namespace gpukill::reclaim {

// self = getpid(); ancestors = getppid() and up by the ppid in PROCFS/PID/stat to PID 1
// (included; the walk stops at 1, at 0, at an unreadable stat, or at a cycle); euid;
// can_signal_any_user (root or CAP_KILL); pid_max from PROCFS/sys/kernel/pid_max (the
// kernel's largest possible, 4194304, when unreadable); self_pgid = getpgrp().
SafetyContext gather_safety_context(const HostRoots& roots, ProtectedList protected_list);

// The walk itself, over a ppid lookup (empty when the process cannot be read). Pure.
std::set<pid_t> ancestors_of(pid_t parent,
                             const std::function<std::optional<pid_t>(pid_t)>& ppid_of);

// The text of /proc/sys/kernel/pid_max. Pure; empty when not a positive number.
std::optional<pid_t> parse_pid_max(std::string_view text);

// Whether PIDs under roots.procfs are this process's own PIDs: its "self" link names
// getpid(). When not (a host /proc mounted in a container without the host's PID
// namespace), every PID read there would be signalled as a different process here.
bool procfs_shows_this_process(const HostRoots& roots);

}  // namespace gpukill::reclaim
