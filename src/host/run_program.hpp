// Running a program and collecting what it printed, bounded in time: fork and exec with
// no shell (arguments are passed as they are), stdout and stderr merged into one pipe,
// stdin from /dev/null, the caller's environment. Used for vendor tools such as
// nvidia-smi.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
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

// A regular file this process may execute.
bool is_executable_file(const std::string& path);

// The first directory of a PATH-style list holding an executable `name` (an empty entry
// is the current directory, as execvp reads it). `executable` tests a path. Pure.
std::optional<std::string> find_in_path(std::string_view name, std::string_view path_list,
                                        const std::function<bool(const std::string&)>& executable);

// argv[0] is a path (no PATH search). Errors: the pipe, fork or exec failed (the errno of
// exec, e.g. ENOENT or EACCES, is kept). A program that ran is a value whatever it did.
Result<ProgramRun> run_program(const std::vector<std::string>& argv,
                               const ProgramOptions& options = {});

}  // namespace gpukill
