// Carrying out a KillPlan: bind every target to its identity, signal them all at
// once through pidfds, wait on the pidfds (poll, no sleep loops), escalate.
#pragma once

#include <signal.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/host_roots.hpp"
#include "model/kill_plan.hpp"
#include "model/kill_results.hpp"
#include "model/result.hpp"

namespace gpukill::reclaim {

struct ExecuteOptions {
    int first_signal = SIGTERM;
    double timeout_seconds = 5;  // wait after the first signal
    bool force = false;          // SIGKILL survivors, then wait kill_timeout_seconds
    double kill_timeout_seconds = 5;
    // Called about every 200 ms while waiting (terminal progress): targets left and
    // seconds until escalation (or until giving up).
    std::function<void(std::size_t left, double seconds_to_next_step)> progress;
    // Asked while waiting: true stops the wait at once and sends nothing more (no
    // escalation); targets still running are `survived` with an "interrupted" note.
    // The caller (Ctrl-C during `gpukill kill`) then records what was sent.
    std::function<bool()> interrupted;
    // false: never use pidfds, signal with kill() after a start-time check, as on kernels
    // before 5.3 (where pidfd_open gives ENOSYS, this happens by itself). For tests.
    bool use_pidfd = true;
};

struct ExecuteResult {
    std::vector<TargetResult> targets;  // in plan order
    double seconds = 0;
};

// One signal of a round: the first signal to every bound target (and SIGCONT right after
// it to a stopped one), or SIGKILL to the survivors.
struct SignalSend {
    std::size_t target = 0;  // index into the plan's targets and ExecuteResult::targets
    int signal = 0;
};

// Where each round of signals is written down, around the system calls that send it.
// `sending` is called with every signal of the round before the first one goes out, and
// must have recorded them durably when it returns: whatever ends this process right
// after a send (SIGKILL, a crash), the log shows what was about to be sent. `sent` is
// called after the round with the sends that were delivered (ExecuteResult::targets
// holds each target's signals so far). Either may be empty.
struct SignalRecorder {
    std::function<void(const std::vector<SignalSend>&, const ExecuteResult&)> sending;
    std::function<void(const std::vector<SignalSend>&, const ExecuteResult&)> sent;
};

// Signals only the plan's targets, each through its binding (pidfd + start time; see
// target_binding.hpp), and nothing at all when plan.aborted() or
// plan.needs_batch_confirmation (every target is then `refused`, with a note).
//  1. Bind every target: gone, PID reused ("PID reused by another process": `gone`) or
//     already a zombie (`exited`) targets are not signalled.
//  2. Send first_signal to every bound target, back to back. A target that was stopped
//     (state T) at binding also gets SIGCONT right after, as systemd does: a stopped
//     process holds SIGTERM until continued, which is how `kill PID` "does nothing" to a
//     job suspended with Ctrl-Z. Not for SIGKILL (it acts on stopped processes) or the
//     stop signals. `recorder.sending` before the round, `recorder.sent` after it.
//  3. Wait for all of them at once (poll on the pidfds) up to timeout_seconds.
//  4. With force, SIGKILL the survivors (recorded the same way) and wait up to
//     kill_timeout_seconds more.
// A target that exits but stays a zombie has exited (its descriptors, and so the GPU, are
// released); the note says when its parent has not reaped it. Survivors get a note from
// their state: D (uninterruptible, in the driver or I/O), T/t (stopped), or still running.
ExecuteResult execute_plan(const KillPlan& plan, const HostRoots& roots,
                           const ExecuteOptions& options, const SignalRecorder& recorder = {});

// Notes targets that ended but are still zombies of a living parent other than
// init, naming that parent. A zombie holds no memory and no files, but its PID
// stays taken. Call it after verification: every zombie is briefly unreaped, and
// a note right at exit would blame parents that are about to reap. It never waits.
void note_unreaped_zombies(std::vector<TargetResult>& results, const HostRoots& roots);

// "SIGTERM", "TERM", "term", "15" -> SIGTERM; anything else is an error.
Result<int> parse_signal_name(std::string_view text);
std::string signal_name(int signal);

}  // namespace gpukill::reclaim
