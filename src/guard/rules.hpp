// The rule checks behind evaluate(): each finds the processes that break one kind of
// rule and says why, with numbers. What follows from a breach (warn, grace, act) is
// decided in evaluate.cpp. Internal to src/guard.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "guard/evaluate.hpp"

namespace gpukill::guard::rules {

// A process the rules judge.
struct Candidate {
    const SnapshotProcess* process = nullptr;
    std::optional<std::string> protected_because;  // set: no rule may touch it
    std::uint64_t memory_bytes = 0;                // driver-reported, over all its GPUs

    const ProcessInfo& info() const { return process->info; }
    const std::string& user() const { return process->info.user; }
    std::uint64_t memory_on(unsigned gpu) const;
    // Known to be on `gpu`: not a tie /dev/kfd alone made (GpuAttribution::any_amd_gpu).
    bool on_gpu(unsigned gpu) const;
};

struct Violation {
    std::size_t candidate = 0;  // index into the candidates
    std::string rule_id;
    std::string why;
    Enforcement enforcement;
};

struct Context {
    const EvaluationInput& input;
    std::vector<Candidate> candidates;  // by PID
};

// Per user and per group: memory and process-count limits, with time windows.
void limit_violations(const Context& context, std::vector<Violation>& out);

// The project a candidate is counted in (the first in file order it meets) and why, in
// words ("Slurm account vision"); empty when none.
struct ProjectMembership {
    const ProjectRule* project = nullptr;
    std::string why;
};
std::optional<ProjectMembership> project_of(const Context& context, const Candidate& candidate);

// Per project: aggregate memory and process-count limits, and allowed GPUs.
void project_violations(const Context& context, std::vector<Violation>& out);
// Per GPU: allowed users and executables, per-user memory, exclusivity, reserved memory;
// and per user: allowed and blocked GPUs.
void gpu_violations(const Context& context, std::vector<Violation>& out);
// Runaway rules: stuck, idle, orphaned, rogue.
void runaway_violations(const Context& context, std::vector<Violation>& out);

// Of `members` (candidate indices), the newest (latest start, then highest PID)
// whose `size` together reaches `excess`. Protected candidates, and candidates of size
// 0 (acting on them would give nothing back), are never chosen.
std::vector<std::size_t> newest_covering(const Context& context, std::vector<std::size_t> members,
                                         std::uint64_t excess,
                                         const std::function<std::uint64_t(std::size_t)>& size);

// Exact only: an entry with a '/' against the executable's path, a name against the
// process name (comm, which the kernel cuts to 15 characters) or the executable's file
// name. Never a substring: "python" does not match "python-xmrig".
bool executable_listed(const ProcessInfo& info, const std::set<std::string>& entries);

// "12.0 GiB", "512 MiB", "300 B"
std::string describe_bytes(std::uint64_t bytes);
// "10m", "1h30m", "45s"
std::string describe_duration(std::chrono::seconds duration);

}  // namespace gpukill::guard::rules
