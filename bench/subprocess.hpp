// Runs a tool as a separate process and times it from spawn to exit, as a user would
// experience it (exec, dynamic loading and start-up included).
#pragma once

#include <string>
#include <vector>

namespace gpukill::bench {

struct ProcessRun {
    int exit_code = -1;    // -1 when killed by a signal
    std::string out;       // stdout
    std::string err;       // stderr
    double started_s = 0;  // CLOCK_MONOTONIC at spawn, to place other events in the run
    double wall_s = 0;     // spawn to reaped
    double cpu_s = 0;      // the child's user + system time
};

// Runs argv (argv[0] searched in PATH) with envp as its whole environment ("K=V"),
// stdin from /dev/null, stdout and stderr captured in memory files so a full pipe can
// never stall it. Throws std::runtime_error when it cannot be started, Interrupted on a
// signal (after killing and reaping it).
ProcessRun run_process(const std::vector<std::string>& argv, const std::vector<std::string>& envp);

// The NULL-terminated char* array exec and posix_spawn take; valid while `strings` is.
std::vector<char*> argv_pointers(const std::vector<std::string>& strings);

// This process's environment with `set` ("K=V") replacing or adding variables and the
// variables named in `unset` removed.
std::vector<std::string> environment_with(const std::vector<std::string>& set,
                                          const std::vector<std::string>& unset);

}  // namespace gpukill::bench
