// What a process costs the host, and what it was started with: CPU time and resident
// memory from /proc/PID/stat, its environment (/proc/PID/environ) and its cgroup file.
// For the monitor's columns and its detail view. Parsing is pure (fixture-tested);
// the readers only read.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/host_roots.hpp"
#include "model/result.hpp"

namespace gpukill {

struct ProcStatUsage {
    std::uint64_t start_time_ticks = 0;  // field 22: the identity the figures belong to
    std::uint64_t cpu_ticks = 0;         // utime + stime (fields 14 and 15), clock ticks
    std::uint64_t rss_pages = 0;         // field 24
};

// /proc/PID/stat: comm may hold spaces and ')', so fields are counted after the LAST ')'.
Result<ProcStatUsage> parse_proc_stat_usage(std::string_view text);

// /proc/PID/environ: NUL-separated NAME=value entries.
std::vector<std::string> parse_proc_environ(std::string_view text);

Result<ProcStatUsage> read_process_usage(const HostRoots& roots, pid_t pid);
// Another user's environment needs privilege: a permission error, not an empty list.
Result<std::vector<std::string>> read_process_environment(const HostRoots& roots, pid_t pid);
Result<std::string> read_process_cgroup(const HostRoots& roots, pid_t pid);

}  // namespace gpukill
