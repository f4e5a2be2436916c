// What a forked target does between fork() and exec()/_exit(). The benchmark has a
// reaper thread, so a child of it may find any lock held: it uses only async-signal-safe
// system calls and touches no allocator, stdio or C++ library state.
#pragma once

#include <sys/types.h>

namespace gpukill::bench {

enum class OnTerm { exit, ignore };

// Everything a child needs, prepared by the parent before fork.
struct TargetChildSpec {
    pid_t parent = 0;  // the benchmark: if it is already gone, the child exits at once
    pid_t pgid = 0;    // the group to join; 0 founds a new one
    OnTerm on_term = OnTerm::exit;
    int ready_fd = -1;  // idle: one byte is written here once SIGTERM's disposition is set
    // exec: stdout and stderr go here; argv and envp are NULL-terminated and absolute.
    int output_fd = -1;
    char* const* argv = nullptr;
    char* const* envp = nullptr;
};

// Joins the group, dies with the benchmark (PR_SET_PDEATHSIG), sets SIGTERM's
// disposition, reports readiness and then sleeps in pause() until a signal ends it.
[[noreturn]] void run_idle_target(const TargetChildSpec& spec);

// Joins the group, dies with the benchmark, then execs argv with stdin from /dev/null and
// stdout and stderr on output_fd. If exec fails, says so on output_fd and exits 127.
[[noreturn]] void exec_target(const TargetChildSpec& spec);

}  // namespace gpukill::bench
