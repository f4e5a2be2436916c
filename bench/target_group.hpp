// The processes the kill benchmark signals: started by it, in one process group of their
// own, and reaped by a thread of it the moment they exit.
//
// Why a reaper thread. A target has to be somebody's child, and an unreaped zombie still
// answers `kill -0`, so whoever that parent is decides when the shell idiom sees the exit.
// It cannot be the tool being timed, and double-forking to init is no answer: PID 1 in a
// container may never reap. So the benchmark is the parent and reaps at once, as init or
// a service manager would for a real job: the reaper blocks in waitid() and wakes within
// microseconds of an exit. gpukill does not depend on it (a pidfd turns readable when its
// process becomes a zombie, and gpukill counts a zombie as exited), so neither side gains.
//
// Safety. A member is signalled only by the tool it was started for (given its PID) and
// by the destructor, which SIGKILLs each member not yet reaped. Reaping happens under the
// same mutex, so a PID signalled from here cannot have been recycled. Members also die
// with the benchmark (PR_SET_PDEATHSIG) if it is killed outright. A keeper member, never
// a target, founds the group and keeps it non-empty, so the reaper's waitid(P_PGID) blocks
// rather than failing while no target exists.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "scoped_fd.hpp"
#include "target_child.hpp"

namespace gpukill::bench {

// How a member ended, as the reaper saw it.
struct TargetExit {
    int code = 0;     // CLD_EXITED, CLD_KILLED or CLD_DUMPED
    int status = 0;   // the exit status, or the signal
    double at_s = 0;  // CLOCK_MONOTONIC when the reaper saw the exit
};

bool killed_by(const TargetExit& exit, int signal);
std::string describe(const TargetExit& exit);  // "exit 0", "killed by SIGTERM"

struct SpawnedTarget {
    pid_t pid = 0;
    ScopedFd output;  // the read end of its stdout and stderr
};

class TargetGroup {
  public:
    // Forks the keeper and starts the reaper; throws std::runtime_error if either fails.
    TargetGroup();
    ~TargetGroup();  // SIGKILL to every member not yet reaped, then every one reaped
    TargetGroup(const TargetGroup&) = delete;
    TargetGroup& operator=(const TargetGroup&) = delete;

    // Forks `count` idle members that die at once on SIGTERM (or ignore it), and returns
    // once every one has set that up. Throws Interrupted on a signal.
    std::vector<pid_t> start_idle(std::size_t count, OnTerm on_term);

    // Forks and execs argv (argv[0] absolute) as a member, SIGTERM at its default, with
    // envp as its environment; its stdout and stderr go to the returned pipe.
    SpawnedTarget spawn(const std::vector<std::string>& argv, const std::vector<std::string>& envp);

    // Waits until each of `pids` has been reaped, at most timeout_s; returns those that
    // have not. Throws Interrupted on a signal.
    std::vector<pid_t> await_exits(const std::vector<pid_t>& pids, double timeout_s);

    // How `pid` ended; empty while it runs (or if it was never a member).
    std::optional<TargetExit> exit_of(pid_t pid) const;

    // SIGKILL to `pid` if it is a member not yet reaped (for targets a dry run left alive).
    void kill_member(pid_t pid);

    // Drops the exit records of `pids`, so that a long run keeps no stale ones.
    void forget(const std::vector<pid_t>& pids);

  private:
    pid_t fork_member(const TargetChildSpec& spec, bool exec);
    void reap_loop();

    mutable std::mutex mutex_;
    std::condition_variable reaped_;
    std::set<pid_t> members_;            // forked and not yet reaped: safe to signal
    std::map<pid_t, TargetExit> exits_;  // reaped
    pid_t pgid_ = 0;                     // the keeper's PID
    std::thread reaper_;
};

}  // namespace gpukill::bench
