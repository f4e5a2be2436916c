// The benchmark's results as a Markdown report (for docs/BENCHMARKS.md) and as JSON.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools.hpp"

namespace gpukill::bench {

// Every recorded round of one tool, in round order.
struct ToolTimes {
    const Tool* tool = nullptr;
    std::vector<double> wall_s;
    std::vector<double> cpu_s;
};

struct RunInfo {
    std::string date_utc;
    std::string kernel;
    long cpus = 0;
    std::string load_before;  // /proc/loadavg, a hint of how noisy the machine was
    std::string load_after;
    std::size_t processes = 0;  // the population
    std::size_t holders = 0;
    std::size_t fd_links = 0;        // links the floor read in one sweep, whole host
    std::size_t host_processes = 0;  // fd directories the floor opened, whole host
    std::size_t rounds = 0;
    std::size_t warmup = 0;
};

void print_markdown(std::ostream& out, const RunInfo& info, const std::vector<ToolTimes>& times);

nlohmann::json to_json(const RunInfo& info, const std::vector<ToolTimes>& times);

// False when a target in the report was missed (the benchmark's exit status says so).
bool targets_met(const std::vector<ToolTimes>& times);

}  // namespace gpukill::bench
