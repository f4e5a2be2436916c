#include "reclaim/safety_context.hpp"

#include <unistd.h>

#include <string>

#include "host/capabilities.hpp"
#include "host/proc_parse.hpp"
#include "host/proc_reader.hpp"
#include "model/parse_util.hpp"

namespace gpukill::reclaim {
namespace {

constexpr pid_t kPidMaxLimit = 4194304;  // PID_MAX_LIMIT on 64-bit kernels

std::optional<pid_t> read_ppid(const HostRoots& roots, pid_t pid) {
    auto text = read_text_file(roots.procfs + "/" + std::to_string(pid) + "/stat");
    if (!text) return std::nullopt;
    auto stat = parse_proc_stat(*text);
    if (!stat) return std::nullopt;
    return stat->ppid;
}

}  // namespace

bool procfs_shows_this_process(const HostRoots& roots) {
    char link[32] = {};
    const ssize_t n = ::readlink((roots.procfs + "/self").c_str(), link, sizeof link - 1);
    return n > 0 && std::string(link, static_cast<std::size_t>(n)) == std::to_string(::getpid());
}

std::set<pid_t> ancestors_of(pid_t parent,
                             const std::function<std::optional<pid_t>(pid_t)>& ppid_of) {
    std::set<pid_t> ancestors;
    pid_t pid = parent;
    while (pid > 0 && ancestors.insert(pid).second) {
        if (pid == 1) break;
        auto next = ppid_of(pid);
        if (!next) break;
        pid = *next;
    }
    return ancestors;
}

std::optional<pid_t> parse_pid_max(std::string_view text) {
    auto value = text::parse_int<pid_t>(text::trim(text));
    if (!value || *value <= 0) return std::nullopt;
    return value;
}

SafetyContext gather_safety_context(const HostRoots& roots, ProtectedList protected_list) {
    SafetyContext context;
    context.self = ::getpid();
    context.self_pgid = ::getpgrp();
    context.euid = ::geteuid();
    context.ancestors = ancestors_of(::getppid(), [&](pid_t pid) { return read_ppid(roots, pid); });
    for (pid_t ancestor : context.ancestors) {
        if (pid_t pgid = ::getpgid(ancestor); pgid > 0) context.ancestor_pgids.insert(pgid);
    }
    context.procfs_is_own_pid_namespace = procfs_shows_this_process(roots);
    context.can_signal_any_user = can_signal_any_user(roots.procfs + "/self/status");
    context.pid_max = kPidMaxLimit;
    if (auto text = read_text_file(roots.procfs + "/sys/kernel/pid_max")) {
        if (auto pid_max = parse_pid_max(*text)) context.pid_max = *pid_max;
    }
    context.protected_list = std::move(protected_list);
    return context;
}

}  // namespace gpukill::reclaim
