#include "reclaim/outcome_notes.hpp"

#include <fmt/format.h>

namespace gpukill::reclaim {

std::string survivor_note(char state, const ExecuteOptions& options, bool sent_kill) {
    switch (state) {
        case 'D':
            return "in uninterruptible sleep (D), usually waiting on the GPU driver or I/O: "
                   "SIGKILL takes effect when it wakes; if it never does, reset the GPU "
                   "(gpukill reset) or reboot";
        case 'T':
            return "stopped (T): signals other than SIGKILL wait until it is continued "
                   "(SIGCONT)";
        case 't':
            return "stopped by a debugger (t): it runs again only when the tracer lets it; "
                   "SIGKILL still ends it";
        default:
            break;
    }
    if (sent_kill) {
        return fmt::format("still running {:g} s after SIGKILL", options.kill_timeout_seconds);
    }
    return fmt::format(
        "still running {:g} s after {} (it ignores or handles it without exiting); use "
        "--force to send SIGKILL after the timeout",
        options.timeout_seconds, signal_name(options.first_signal));
}

std::string denied_note(const std::string& owner, int signal) {
    return fmt::format("permission denied sending {}; run as root or as {}", signal_name(signal),
                       owner.empty() ? "its owner" : owner);
}

std::string zombie_note(pid_t parent) {
    return fmt::format(
        "zombie: parent {} has not reaped it yet; it holds no memory or files, but if the "
        "parent never reaps it, its PID stays taken until the parent exits",
        parent);
}

}  // namespace gpukill::reclaim
