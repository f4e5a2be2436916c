// Converting a process start time (clock ticks since boot, /proc/PID/stat field 22)
// into wall-clock time, as ps does: boot time from /proc/stat "btime" plus ticks / HZ.
#pragma once

#include <cstdint>
#include <string_view>

#include "model/host_roots.hpp"
#include "model/result.hpp"

namespace gpukill {

// The "btime SECONDS" line of /proc/stat (boot time, Unix seconds). Pure.
Result<std::int64_t> parse_boot_time(std::string_view proc_stat_text);

// btime from PROCFS/stat.
Result<std::int64_t> read_boot_time_unix(const HostRoots& roots);

// USER_HZ, the unit of the stat times (sysconf(_SC_CLK_TCK)); 100 if sysconf fails.
long clock_ticks_per_second();

// start_time_unix_ms (ticks to wall time) is pure and lives in model/start_time.hpp.

}  // namespace gpukill
