// What carrying out a kill plan did: each target's outcome and signals, and for each
// GPU whether its memory came back. Pure data, produced by src/reclaim (execute,
// verify) and reported by every interface (the engine's kill and reset documents).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/kill_plan.hpp"

namespace gpukill::reclaim {

enum class Outcome {
    exited,      // gone before any signal was sent (exited on its own)
    terminated,  // exited after the first signal
    killed,      // exited after SIGKILL
    survived,    // still alive when gpukill gave up
    refused,     // not signalled: see the plan's refusals, or its identity changed
    gone,        // the PID was gone or belonged to another process at binding time
    failed,      // not signalled: gpukill itself could not (out of descriptors or memory)
};
const char* to_string(Outcome outcome);

struct TargetResult {
    PlannedTarget target;
    Outcome outcome = Outcome::survived;
    std::vector<std::string> signals_sent;  // "SIGTERM", "SIGKILL"
    double seconds = 0;                     // from the first signal to confirmed exit
    // Why a survivor survived and what would help, e.g. "in uninterruptible sleep (D):
    // ..." or "a zombie its parent 4242 does not reap".
    std::optional<std::string> note;
};

struct GpuRelease {
    unsigned gpu = 0;
    std::optional<std::uint64_t> memory_used_before;
    std::optional<std::uint64_t> memory_used_after;
    std::optional<std::uint64_t> memory_reclaimed_bytes;  // before - after, when both known
    std::optional<double> seconds_to_release;             // from verification start; empty if never
    bool released = false;                                // the expected memory came back
    // Memory stays used and no process holds the GPU any more: only a reset helps.
    bool soft_locked = false;
    std::vector<pid_t> targets_still_holding;  // targets still holding a device file
};

}  // namespace gpukill::reclaim
