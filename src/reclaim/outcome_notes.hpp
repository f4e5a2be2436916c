// The one-line notes execute_plan attaches to a target: why it survived and what would
// help, why a signal was refused, an unreaped zombie. Pure; internal to src/reclaim.
#pragma once

#include <sys/types.h>

#include <string>

#include "reclaim/execute.hpp"

namespace gpukill::reclaim {

// A target still alive when gpukill gave up, by its state in /proc: D (uninterruptible,
// usually in the GPU driver), T (stopped), t (stopped by a tracer), else still running
// after the last signal sent (SIGKILL when `sent_kill`, else options.first_signal).
std::string survivor_note(char state, const ExecuteOptions& options, bool sent_kill);

// EPERM from the kernel: the plan thought the target could be signalled but it cannot.
std::string denied_note(const std::string& owner, int signal);

// The target has exited, but its parent has not collected its exit status.
std::string zombie_note(pid_t parent);

}  // namespace gpukill::reclaim
