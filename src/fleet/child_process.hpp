// Running one client program (ssh) for the fleet, from any thread: posix_spawn with no
// shell, stdin from /dev/null, stdout through a pipe, stderr into a memory file (an SSH
// control master that goes to the background may keep stderr open; a memory file
// never blocks on it), bounded in time: past the timeout the child gets SIGTERM, then
// SIGKILL. Every descriptor is close-on-exec, so children started at the same time by
// other threads never hold each other's pipes open.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/result.hpp"

namespace gpukill::fleet {

struct ChildRun {
    int exit_code = -1;  // 128 + signal when a signal ended it
    bool timed_out = false;
    bool cancelled = false;
    std::string out;
    std::string err;
};

// argv[0] is a path or a name looked up in PATH. Errors: spawn failed (ENOENT...).
// `cancelled`, asked at least every 100 ms, ends the child as the timeout does
// (`cancelled` set in the result).
Result<ChildRun> run_child(const std::vector<std::string>& argv, double timeout_seconds,
                           std::size_t max_output_bytes = 64u << 20,
                           const std::function<bool()>& cancelled = nullptr);

}  // namespace gpukill::fleet
