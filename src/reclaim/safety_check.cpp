#include "reclaim/safety_check.hpp"

#include <string>

#include "reclaim/system_program.hpp"

namespace gpukill::reclaim {
namespace {

bool program_listed(const ProcessInfo& info, const ProtectedList& list) {
    if (executable_named(info, list.names) || executable_named(info, list.executable_paths)) {
        return true;
    }
    for (const auto& [program, users] : list.owned_programs) {
        if (!info.user.empty() && users.contains(info.user) && executable_named(info, {program})) {
            return true;
        }
    }
    return false;
}

std::string owner_text(const ProcessInfo& info) {
    if (!info.user.empty()) return info.user;
    return info.uid ? std::to_string(*info.uid) : std::string("another user");
}

}  // namespace

bool is_protected(const ProcessInfo& info, const ProtectedList& list,
                  const SystemPrograms& system_programs) {
    if (list.pids.contains(info.pid)) return true;
    if (!info.user.empty() && list.users.contains(info.user)) return true;
    if (!system_programs.contains({info.pid, info.start_time_ticks})) return false;
    return program_listed(info, list);
}

std::optional<Refusal> check_safety(const ProcessInfo& info, const SafetyContext& safety,
                                    bool explicitly_named) {
    Refusal refusal{.pid = info.pid,
                    .argument = {},
                    .name = info.comm,
                    .kind = RefusalKind::init,
                    .why = {},
                    .explicitly_named = explicitly_named};
    auto refuse = [&](RefusalKind kind, std::string why) {
        refusal.kind = kind;
        refusal.why = std::move(why);
        return refusal;
    };
    const std::string pid = std::to_string(info.pid);
    // kill() with 0 or a negative number addresses a process group or every process;
    // whatever produced such a PID (a driver's garbage, a crafted procfs) is refused.
    if (info.pid <= 0 || info.pid >= safety.pid_max) {
        return refuse(RefusalKind::invalid_pid, "PID " + pid + " is not a valid process id");
    }
    if (info.pid == 1)
        return refuse(RefusalKind::init, "PID 1 is init: signalling it is never safe");
    if (info.pid == safety.self)
        return refuse(RefusalKind::self_or_ancestor, "PID " + pid + " is gpukill itself");
    if (safety.ancestors.contains(info.pid)) {
        return refuse(RefusalKind::self_or_ancestor,
                      "PID " + pid + " (" + info.comm + ") is a process gpukill runs under");
    }
    if (info.kernel_thread) {
        return refuse(RefusalKind::kernel_thread,
                      "PID " + pid + " (" + info.comm + ") is a kernel thread");
    }
    if (is_protected(info, safety.protected_list, safety.system_programs)) {
        return refuse(RefusalKind::protected_process,
                      "PID " + pid + " (" + info.comm + ") is on the protected list");
    }
    // kill(2) lets an unprivileged caller signal only its own user's processes. An
    // unknown owner is left to the kernel, which answers EPERM at signal time.
    if (info.uid && *info.uid != safety.euid && !safety.can_signal_any_user) {
        const std::string owner = owner_text(info);
        return refuse(RefusalKind::permission,
                      *info.uid == 0 ? "owned by root; run gpukill as root (sudo)"
                                     : "owned by " + owner + "; run as root or as " + owner);
    }
    return std::nullopt;
}

}  // namespace gpukill::reclaim
