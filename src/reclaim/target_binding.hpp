// Binding a planned target to the live process it names, and signalling it only through
// that binding. A pidfd cannot come to refer to another process; where one cannot be had
// (kernels before 5.3: ENOSYS; out of descriptors: EMFILE/ENFILE) the start time is
// checked again immediately before each kill(), leaving only the microseconds between the
// check and the call for a PID to be reused. Internal to src/reclaim.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "model/host_roots.hpp"
#include "model/process.hpp"
#include "sys/fd_io.hpp"

namespace gpukill::reclaim {

struct BoundProcess {
    ProcessIdentity identity;
    UniqueFd pidfd;    // empty: signalled by kill() after a start-time check
    char state = '?';  // at binding time
};

enum class BindStatus {
    bound,
    gone,    // no such process any more
    reused,  // the PID belongs to another process (start time differs)
    zombie,  // it has already exited; its parent has not reaped it yet
    failed,  // pidfd_open or /proc failed for another reason (see note)
};

struct Binding {
    BindStatus status = BindStatus::failed;
    BoundProcess process;
    std::string note;  // why, when not bound
};

// pidfd_open first, then the start time read again: a match after the pidfd exists
// proves the pidfd refers to the planned process (a PID reused before pidfd_open shows a
// later start time). `use_pidfd` false binds without one (tests of the fallback path).
Binding bind_process(const ProcessIdentity& identity, const HostRoots& roots, bool use_pidfd);

enum class SendStatus {
    sent,
    exited,  // ESRCH or the identity no longer matches: it exited before the signal
    denied,  // EPERM
    failed,
};

struct SendResult {
    SendStatus status = SendStatus::failed;
    int error = 0;  // errno for denied and failed
};

SendResult send_signal(const BoundProcess& process, const HostRoots& roots, int signal);

// What /proc says of a bound process now: its state, or empty when it has exited (gone,
// PID reused, or a zombie counts as exited: its file descriptors are closed).
struct LiveState {
    char state = '?';
    pid_t ppid = 0;
};
std::optional<LiveState> live_state(const ProcessIdentity& identity, const HostRoots& roots);

// The parent of a zombie that is still the planned process; empty for anything else.
std::optional<pid_t> unreaped_zombie_parent(const ProcessIdentity& identity,
                                            const HostRoots& roots);

}  // namespace gpukill::reclaim
