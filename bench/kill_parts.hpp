// The two parts of the kill benchmark (docs/BENCHMARKS.md, "Stopping a process").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "kill_results.hpp"
#include "kill_targets.hpp"

namespace gpukill::bench {

struct KillCommand {
    std::string gpukill;           // absolute path of the binary under test
    std::vector<std::string> env;  // its whole environment ("K=V")
};

// Part 1, one target at a time, each round (after `warmup` untimed rounds) running, in a
// rotating order: `gpukill kill --pid P`, the shell idiom, and three commands that each do
// a prefix of gpukill kill's work, to show where its time goes: `gpukill kill --pid P
// --dry-run` (start-up, discovery, process table, plan, the first audit record),
// `gpukill list` (start-up and discovery) and `gpukill --version` (start-up alone).
// Each kill gets a fresh target.
LatencyResult run_latency(TargetSource& source, const KillCommand& gpukill, std::size_t rounds,
                          std::size_t warmup);

struct BatchConfig {
    std::size_t targets = 200;
    std::size_t ignoring = 50;
    double timeout_secs = 1;
    std::size_t runs = 5;
    std::size_t warmup = 1;
};

// Part 2: `gpukill kill --pid P1 ... --pid PN --timeout-secs T --force`, fresh targets
// each run.
BatchResult run_batch(TargetSource& source, const KillCommand& gpukill, const BatchConfig& config);

}  // namespace gpukill::bench
