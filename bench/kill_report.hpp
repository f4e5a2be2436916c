// The kill benchmark's results as Markdown (for docs/BENCHMARKS.md) and as JSON, with
// the targets judged.
#pragma once

#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "kill_results.hpp"

namespace gpukill::bench {

// The targets from the issue.
inline constexpr double kLatencyTargetS = 0.020;  // gpukill kill, spawn to confirmed exit
inline constexpr double kIdiomRatioTarget =
    5.0;                                      // the idiom takes at least this many times as long
inline constexpr double kBatchTargetS = 1.5;  // 200 targets, 50 ignoring SIGTERM, 1 s + --force

void print_kill_markdown(std::ostream& out, const KillBenchInfo& info,
                         const std::vector<LatencyResult>& latency,
                         const std::vector<BatchResult>& batch);

nlohmann::json kill_to_json(const KillBenchInfo& info, const std::vector<LatencyResult>& latency,
                            const std::vector<BatchResult>& batch);

// False when a target was missed (the benchmark's exit status says so).
bool kill_targets_met(const std::vector<LatencyResult>& latency,
                      const std::vector<BatchResult>& batch);

}  // namespace gpukill::bench
