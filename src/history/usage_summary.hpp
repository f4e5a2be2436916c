// Pure aggregation of usage-history samples for `gpukill audit`: per process identity,
// per user, per process name, per GPU and per hour of day. No I/O; tested on
// constructed samples.
//
// Time accounting ("GPU-hours"): every recorded snapshot (an instant) stands for the
// time until the next one, but at most `cap`: twice the median interval between
// instants, and never more than 15 minutes. So a process seen by one `list` run a day
// is credited minutes, not 24 hours, while a steady `watch` or agent is credited in
// full. The last instant stands for the time until the end of the window, capped the
// same way. With fewer than two instants there is no interval to go by and nothing is
// credited. A process on two GPUs for an hour is two GPU-hours.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "history/usage_store.hpp"
#include "model/pattern.hpp"
#include "model/result.hpp"

namespace gpukill::history {

inline constexpr std::int64_t kMaxCreditMs = 15 * 60 * 1000;

struct SampleWeights {
    std::map<std::int64_t, double> hours;             // instant -> hours it stands for
    std::optional<std::int64_t> typical_interval_ms;  // median; empty below two instants
    std::int64_t cap_ms = 0;
    std::size_t instants = 0;
};

// `instants`: times of recorded snapshots, any order, duplicates allowed.
SampleWeights sample_weights(std::vector<std::int64_t> instants, std::int64_t until_unix_ms);

// The distinct times of the GPU samples and of the process samples together.
std::vector<std::int64_t> sample_instants(const std::vector<GpuSample>& gpus,
                                          const std::vector<ProcessSample>& processes);

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

// Ordered by first seen, then PID.
std::vector<ProcessUsage> summarize_processes(const std::vector<ProcessSample>& samples,
                                              const SampleWeights& weights);

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

// Hour of day (0-23) of a moment; the CLI passes local time, tests a fixed zone.
using HourOfDay = std::function<int(std::int64_t unix_ms)>;
int local_hour_of_day(std::int64_t unix_ms);

UsageSummary summarize_usage(const std::vector<GpuSample>& gpus,
                             const std::vector<ProcessSample>& processes,
                             const SampleWeights& weights, const HourOfDay& hour_of_day);

// --audit-user: the exact account name, or a uid when the text is a number.
bool sample_matches_user(const ProcessSample& sample, const std::string& wanted);

// --audit-process: a pattern (model/pattern.hpp) searched in the name and in the
// command line. Errors for a pattern it refuses ("invalid --audit-process: ...").
Result<Pattern> compile_process_pattern(const std::string& pattern);

// Samples of matching processes; the pattern runs once per distinct name and command.
std::vector<ProcessSample> filter_samples(std::vector<ProcessSample> samples,
                                          const std::optional<std::string>& user,
                                          const std::optional<Pattern>& process);

}  // namespace gpukill::history
