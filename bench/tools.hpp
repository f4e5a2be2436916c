// The contenders, each a callable that runs one discovery sweep over the population
// and returns its time and the holder PIDs it found (for the correctness check).
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "population.hpp"

namespace gpukill::bench {

enum class ToolKind { in_process, subprocess };

struct Sample {
    double wall_s = 0;
    double cpu_s = 0;
    std::vector<pid_t> holders;  // ascending
};

struct Tool {
    std::string id;       // short, for JSON and ratio rows
    std::string label;    // what the table shows
    std::string command;  // what was run, for the reader to reproduce
    ToolKind kind;
    std::function<Sample()> run;
};

struct ToolPaths {
    std::string gpukill;  // build/bin/gpukill
    std::string floor;    // build/bin/gpukill_proc_fd_floor
    std::string fuser;    // fuser, searched in PATH
};

// In-process tools first, then subprocesses. The population must outlive the tools.
std::vector<Tool> make_tools(const Population& population, const ToolPaths& paths);

}  // namespace gpukill::bench
