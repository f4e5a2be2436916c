// What rogue detection looks for and how much each sign weighs: CONFIG_DIR/rogue.yaml
// (config_file.hpp) over these documented defaults (docs/ROGUE.md). Plain data.
//
// Scoring: each signal that fires adds its weight once (several observations of one
// signal are one piece of evidence); the score is the sum, capped at 100. A process
// scoring report_threshold or more is a finding. Risk: low below risk.medium, then
// medium, high, critical at their lower bounds.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "detect/signals.hpp"

namespace gpukill::detect {

inline constexpr int kMaxScore = 100;

struct RiskThresholds {
    int medium = 40;
    int high = 70;
    int critical = 90;
    friend bool operator==(const RiskThresholds&, const RiskThresholds&) = default;
};

// Mining keeps a GPU at full load for hours with a small, constant working set; training
// and inference hold gigabytes that vary (or grow) as batches and caches come and go.
struct UsageShapeConfig {
    unsigned min_utilization_percent = 90;
    // The busy stretch must last this long. Short enough to judge while the agent samples
    // continuously; a miner runs for hours, and memory is what tells it from a benchmark.
    double min_minutes = 10;
    std::uint64_t max_memory_bytes = std::uint64_t{1} << 30;
    double max_memory_variation = 0.05;  // coefficient of variation (stddev / mean)
    // Samples further apart than this break a stretch: nobody saw what happened between.
    double max_sample_gap_seconds = 300;
    friend bool operator==(const UsageShapeConfig&, const UsageShapeConfig&) = default;
};

// Reading a GPU holder's executable for miner_signature: at most max_bytes from its
// start, through /proc/PID/exe (a deleted or renamed file still counts). The signal
// needs min_signatures distinct signatures: one such string can turn up by accident.
struct ExecutableScanConfig {
    std::uint64_t max_bytes = std::uint64_t{64} << 20;
    unsigned min_signatures = 2;
    friend bool operator==(const ExecutableScanConfig&, const ExecutableScanConfig&) = default;
};

// Exact matches only, never substrings (docs/ROGUE.md).
struct AllowList {
    std::vector<std::string> users;        // account name or uid as digits
    std::vector<std::string> executables;  // absolute executable path
    std::vector<std::string> names;        // comm, when the executable is that program
    friend bool operator==(const AllowList&, const AllowList&) = default;
};

struct RogueConfig {
    int report_threshold = 40;
    // `gpukill check` (and the agent's and MCP's) counts a finding as a problem from this
    // score: 60 is the weight of one sign that only mining or hiding explains. Findings
    // below it are weak signs together (a build in /tmp that names itself): notes there.
    int check_threshold = 60;
    RiskThresholds risk;
    std::array<int, kSignalCount> weights{};  // by Signal; see weight()
    UsageShapeConfig usage_shape;
    double unattended_min_hours = 6;
    // Names may end in '*' (a prefix pattern); compared case-insensitively.
    std::vector<std::string> miner_names;
    std::vector<std::string> masquerade_names;
    std::vector<std::string> miner_options;  // exact option words, e.g. --donate-level
    std::vector<std::string> algorithms;     // values of --algo / -a, case-insensitive
    std::vector<unsigned> pool_ports;
    // Host names (matched in command lines, also as a parent domain: "2miners.com"
    // covers "etc.2miners.com") and IP addresses (also matched against connections;
    // names are never resolved).
    std::vector<std::string> pool_hosts;
    std::vector<std::string> temp_dirs;  // absolute directories
    // Names only the kernel's own threads have (patterns as above; '/' allowed): a user
    // process holding a GPU under one is hiding.
    std::vector<std::string> kernel_thread_names;
    // System daemons that never touch a GPU, and where the system's programs live: one of
    // them holding a GPU from anywhere else (or from a file its owner is not root, or others
    // may write) is a copy under a borrowed name.
    std::vector<std::string> system_daemon_names;
    std::vector<std::string> system_program_dirs;  // absolute directories
    // Strings mining programs carry (pool protocols, algorithms, projects), searched
    // case-insensitively in the executable's bytes.
    std::vector<std::string> miner_signatures;
    ExecutableScanConfig executable_scan;
    // How much of a file named by --config/-c is read for pools, wallets and algorithms.
    std::uint64_t config_file_max_bytes = std::uint64_t{64} << 10;
    AllowList allow;

    int weight(Signal signal) const { return weights[static_cast<std::size_t>(signal)]; }
    void set_weight(Signal signal, int value) { weights[static_cast<std::size_t>(signal)] = value; }
    friend bool operator==(const RogueConfig&, const RogueConfig&) = default;
};

RogueConfig default_rogue_config();

}  // namespace gpukill::detect
