#pragma once
// A process's identity as the driver sees it: a pid plus its start time, so that a recycled
// pid is not mistaken for the process that allocated memory.

#include <cstdint>
#include <optional>
#include <string_view>

namespace gpusim {

struct ProcStat {
    char state = '?';  // R, S, D, Z, ...
    std::uint64_t start_time_ticks = 0;
};

// Parses the text of /proc/PID/stat (the command name may hold spaces and parentheses).
std::optional<ProcStat> parse_proc_stat(std::string_view text);

std::optional<ProcStat> read_proc_stat(int pid);

// Alive (not exited, not a zombie) and started at `start_time_ticks`.
bool process_running(int pid, std::uint64_t start_time_ticks);

}  // namespace gpusim
