// What the kill benchmark measured, shared by its two parts and its report.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "machine.hpp"

namespace gpukill::bench {

// One command timed repeatedly as a subprocess, spawn to reaped.
struct Series {
    std::string id;       // short, for JSON and ratio rows
    std::string label;    // what the table shows
    std::string command;  // what was run, for the reader to reproduce
    std::vector<double> wall_s;
    std::vector<double> cpu_s;  // the command's user + system time
    // Spawn to the moment the (last) target exited, as the reaper saw it; empty for
    // commands that end no target. What follows it is the command confirming the exit.
    std::vector<double> target_exit_s;
};

// Part 1: one target that exits at once on SIGTERM, per round.
struct LatencyResult {
    std::string variant;      // "plain" or "gpusim"
    std::string description;  // what the target is
    std::vector<Series> tools;
};

// Part 2: many targets, some ignoring SIGTERM, in one command.
struct BatchResult {
    std::string variant;
    std::string description;
    std::size_t targets = 0;
    std::size_t ignoring = 0;
    Series run;
};

struct KillBenchInfo {
    Machine machine;
    std::string load_before;
    std::string load_after;
    std::size_t host_processes = 0;  // on the host during the run, the benchmark's included
    std::string state_dir_fs;        // filesystem of gpukill's audit log: it syncs every record
    std::size_t rounds = 0;
    std::size_t warmup = 0;
};

}  // namespace gpukill::bench
