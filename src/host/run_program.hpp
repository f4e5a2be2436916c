// Running a program and collecting what it printed, bounded in time: fork and exec with
// no shell (arguments are passed as they are), stdout and stderr merged into one pipe,
// stdin from /dev/null, the caller's environment. Used for vendor tools such as
// nvidia-smi.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "model/result.hpp"

namespace gpukill {

struct ProgramRun {
    std::optional<int> exit_status;  // when it exited
    std::optional<int> signal;       // when a signal ended it
    bool timed_out = false;          // it ran past the timeout and was stopped
    std::string output;              // stdout and stderr as they interleaved, cut at the cap
    bool output_truncated = false;
    double seconds = 0;
};

struct ProgramOptions {
    double timeout_seconds = 60;
    // After the timeout: SIGTERM, then SIGKILL this much later.
    double kill_grace_seconds = 2;
    std::size_t max_output_bytes = 64 * 1024;
};

// argv[0] is a path (no PATH search). Errors: the pipe, fork or exec failed (the errno of
// exec, e.g. ENOENT or EACCES, is kept). A program that ran is a value whatever it did.
Result<ProgramRun> run_program(const std::vector<std::string>& argv,
                               const ProgramOptions& options = {});

}  // namespace gpukill
