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
#include "model/usage_summary.hpp"

namespace gpukill::history {

inline constexpr std::int64_t kMaxCreditMs = 15 * 60 * 1000;

// `instants`: times of recorded snapshots, any order, duplicates allowed.
SampleWeights sample_weights(std::vector<std::int64_t> instants, std::int64_t until_unix_ms);

// The distinct times of the GPU samples and of the process samples together.
std::vector<std::int64_t> sample_instants(const std::vector<GpuSample>& gpus,
                                          const std::vector<ProcessSample>& processes);

// Ordered by first seen, then PID.
std::vector<ProcessUsage> summarize_processes(const std::vector<ProcessSample>& samples,
                                              const SampleWeights& weights);

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
