// What `gpukill audit` reports from the usage history (aggregated by
// history/usage_summary.hpp): per process identity, per user and process name, per GPU
// and per hour of day, with the weights that turn samples into GPU-hours. Pure data.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpukill::history {

struct SampleWeights {
    std::map<std::int64_t, double> hours;             // instant -> hours it stands for
    std::optional<std::int64_t> typical_interval_ms;  // median; empty below two instants
    std::int64_t cap_ms = 0;
    std::size_t instants = 0;
};

// One process identity (pid + start time) over the window.
struct ProcessUsage {
    pid_t pid = 0;
    std::uint64_t start_time_ticks = 0;
    std::optional<std::int64_t> start_time_unix_ms;
    std::optional<uid_t> uid;
    std::string user;
    std::string name;     // as last seen (a process may rename itself)
    std::string command;  // as last seen
    std::optional<std::string> container;
    std::vector<unsigned> gpus;  // every GPU it was seen on, ascending
    std::int64_t first_seen_unix_ms = 0;
    std::int64_t last_seen_unix_ms = 0;
    std::size_t samples = 0;  // instants it was seen at
    // Summed over its GPUs at one instant; over instants where any value was known.
    std::optional<std::uint64_t> peak_memory_bytes;
    std::optional<std::uint64_t> average_memory_bytes;
    // The GPUs' own utilisation while it was on them; its own share where the driver
    // reports one (DRM fdinfo).
    std::optional<double> average_gpu_utilization_percent;
    std::optional<double> average_process_utilization_percent;
    double gpu_hours = 0;
    bool orphaned = false;  // seen orphaned at least once
};

struct GroupUsage {
    std::string key;                 // user name, or process name
    std::optional<uid_t> uid;        // for users: the uid, when known
    std::vector<std::string> users;  // for process names: who ran them
    double gpu_hours = 0;
    std::optional<std::uint64_t> peak_memory_bytes;  // the group's total at one instant
    std::size_t processes = 0;                       // distinct identities
};

struct GpuUsage {
    unsigned index = 0;
    std::optional<std::string> uuid;
    std::optional<std::string> name;
    std::size_t samples = 0;
    std::optional<double> average_utilization_percent;
    std::optional<unsigned> peak_utilization_percent;
    std::optional<std::uint64_t> average_memory_used_bytes;
    std::optional<std::uint64_t> peak_memory_used_bytes;
    std::optional<std::uint64_t> memory_total_bytes;
    double gpu_hours_in_use = 0;  // credited time with at least one process on it
};

struct HourUsage {
    int hour = 0;          // 0-23, local time
    double gpu_hours = 0;  // process GPU-hours credited to instants in this hour
    std::optional<double> average_utilization_percent;  // of every GPU sample in this hour
    std::size_t samples = 0;                            // GPU samples in this hour
};

struct UsageSummary {
    std::vector<GroupUsage> users;      // most GPU-hours first, then name
    std::vector<GroupUsage> processes;  // by process name, most GPU-hours first
    std::vector<GpuUsage> gpus;         // busiest (highest average utilisation) first
    std::vector<HourUsage> by_hour;     // 24 entries, hour 0 first
    double total_gpu_hours = 0;
};

}  // namespace gpukill::history
