// The monitor's process panel as data: one row per process and GPU it holds, and one row
// per GPU for the memory no listed process accounts for. Built from a snapshot and the
// processes' CPU and memory readings (pure); filtered, sorted and put in tree order by
// view.hpp; drawn by screen.hpp.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/process.hpp"
#include "model/snapshot.hpp"

namespace gpukill::top {

enum class RowKind {
    process,      // a process holding the GPU
    unaccounted,  // memory used on the GPU that no listed process accounts for
};

struct Row {
    RowKind kind = RowKind::process;
    unsigned gpu = 0;
    ProcessIdentity identity;  // {0, 0} for an unaccounted row
    pid_t ppid = 0;
    std::string user;
    std::optional<uid_t> uid;
    std::string name;     // comm, terminal-safe
    std::string command;  // the command line joined, terminal-safe
    std::optional<std::uint64_t> gpu_memory_bytes;
    std::optional<unsigned> gpu_utilization_percent;
    std::optional<double> cpu_percent;
    std::optional<std::uint64_t> host_memory_bytes;
    std::optional<std::int64_t> running_seconds;
    std::string container;  // "pytorch:24.01-py3" (the image), "docker:3f2a9c1b0d4e", or empty
    std::string seen_by;    // "driver+file", "driver", "file only", "kfd (any AMD)", "-"
    bool hidden = false;    // holds the device file, the driver does not list it
    bool orphaned = false;  // its parent died (the worker `kill -9` left behind)
    bool observer = false;  // a monitoring client: device files, no context (shown dim)
    // Whether this viewer may act on it, and why not (another user's process without
    // privilege; an unaccounted row is no process to signal).
    bool actionable = true;
    std::string not_actionable_reason;
    // Set by tree ordering: the depth under its displayed parent.
    int depth = 0;
};

// Who is looking: their own processes can be signalled; others' only with privilege.
struct Viewer {
    uid_t uid = 0;
    bool privileged = false;  // root or CAP_KILL
};

// A process's CPU time and resident memory as read at one refresh.
struct ProcessCpu {
    std::uint64_t cpu_ticks = 0;
    std::uint64_t rss_bytes = 0;
};
using CpuReadings = std::map<std::pair<pid_t, std::uint64_t>, ProcessCpu>;  // by identity

// CPU percent of one core between two readings `seconds` apart; empty without a
// previous reading or a positive interval.
std::optional<double> cpu_percent(const std::optional<ProcessCpu>& before, const ProcessCpu& now,
                                  double seconds, long clock_ticks_per_second);

// The rows of `snapshot`, in snapshot order (by PID, then GPU), unaccounted rows last.
// `previous` and `seconds` give CPU%: readings of the refresh before, `seconds` ago.
std::vector<Row> build_rows(const Snapshot& snapshot, const CpuReadings& now,
                            const CpuReadings& previous, double seconds, const Viewer& viewer);

// "3:04:05" (hours unbounded), "12:03", or "2d03h" past a day.
std::string format_duration(std::int64_t seconds);

}  // namespace gpukill::top
