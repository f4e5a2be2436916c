// Recorded moments for the guard's evaluator: snapshots built process by process, a
// policy from YAML text, an injected clock, and one call that evaluates them all.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "guard/evaluate.hpp"
#include "guard/policy_yaml.hpp"

namespace gpukill::guard::test {

constexpr std::uint64_t GiB = 1ULL << 30;
// Monday 2026-11-30 00:00:00 UTC; the local-time breakdown is passed separately.
constexpr std::int64_t kMonday = 1795996800000;
constexpr std::int64_t kMinute = 60'000;

inline Policy policy_from(std::string_view yaml) {
    auto policy = parse_policy(yaml, "test.yaml");
    if (!policy) throw std::runtime_error(policy.error().what);
    return *policy;
}

// The clock at `unix_ms` with local time given as weekday (0 = Monday) and HH:MM.
inline GuardClock clock_at(std::int64_t unix_ms, int weekday = 0, int hour = 12, int minute = 0) {
    return GuardClock{std::chrono::system_clock::time_point(std::chrono::milliseconds(unix_ms)),
                      LocalTime{weekday, hour * 60 + minute}};
}

struct ProcessSpec {
    pid_t pid = 0;
    std::string user;
    std::string comm = "python3";
    std::vector<std::pair<unsigned, std::uint64_t>> memory;  // GPU -> bytes
    std::uint64_t start = 0;                                 // start_time_ticks; 0: pid
    std::optional<std::string> exe;
    std::vector<std::string> cmdline;
    bool orphaned = false;
    std::optional<unsigned> utilization;  // the process's own share, on every GPU
};

class SnapshotBuilder {
  public:
    explicit SnapshotBuilder(std::int64_t unix_ms, unsigned gpus = 2) {
        snapshot_.host = "test";
        snapshot_.timestamp_unix_ms = unix_ms;
        snapshot_.boot_time_unix_s = 1795900000;
        for (unsigned index = 0; index < gpus; ++index) {
            Gpu gpu;
            gpu.index = index;
            gpu.reading.memory_total_bytes = 80 * GiB;
            gpu.reading.utilization_percent = 0;
            snapshot_.gpus.push_back(gpu);
        }
    }
    SnapshotBuilder& gpu_utilization(unsigned gpu, unsigned percent) {
        snapshot_.gpus.at(gpu).reading.utilization_percent = percent;
        return *this;
    }
    SnapshotBuilder& process(const ProcessSpec& spec) {
        SnapshotProcess process;
        process.info.pid = spec.pid;
        process.info.ppid = spec.orphaned ? 1 : 100;
        process.info.user = spec.user;
        process.info.uid = 1000;
        process.info.comm = spec.comm;
        process.info.exe = spec.exe;
        process.info.cmdline =
            spec.cmdline.empty() ? std::vector<std::string>{spec.comm} : spec.cmdline;
        process.info.start_time_ticks =
            spec.start != 0 ? spec.start : static_cast<std::uint64_t>(spec.pid);
        process.info.state = 'R';
        process.orphaned = spec.orphaned;
        for (auto [gpu, bytes] : spec.memory) {
            ProcessGpuUse use;
            use.gpu_index = gpu;
            use.memory_bytes = bytes;
            use.seen_by.driver = true;
            use.utilization_percent = spec.utilization;
            process.gpus.push_back(use);
            snapshot_.gpus.at(gpu).process_count += 1;
        }
        snapshot_.processes.push_back(process);
        return *this;
    }
    Snapshot build() const { return snapshot_; }

  private:
    Snapshot snapshot_;
};

// Everything evaluate() takes besides the policy, snapshot and clock.
struct World {
    History history;
    GuardState state;
    reclaim::ProtectedList reclaim_protected{.names = {"Xorg"}, .users = {}, .pids = {}};
    std::map<std::string, std::set<std::string>> unix_groups;
    std::map<IdentityKey, RogueScore> rogue_scores;
    std::map<IdentityKey, ProjectFacts> project_facts;
    // The processes that run a system program (their identities): only these does a
    // protected program match.
    reclaim::SystemPrograms system_programs;

    // Evaluates, keeps the returned state for the next call and adds the snapshot to
    // the history, as guard run does.
    std::vector<Decision> step(const Policy& policy, const Snapshot& snapshot, GuardClock clock) {
        Evaluation evaluation = evaluate(EvaluationInput{.policy = policy,
                                                         .snapshot = snapshot,
                                                         .history = history,
                                                         .clock = clock,
                                                         .state = state,
                                                         .reclaim_protected = reclaim_protected,
                                                         .unix_group_members = unix_groups,
                                                         .rogue_scores = rogue_scores,
                                                         .project_facts = project_facts,
                                                         .system_programs = system_programs});
        state = evaluation.state;
        history.add_snapshot(snapshot);
        return evaluation.decisions;
    }
};

inline const Decision* find(const std::vector<Decision>& decisions, pid_t pid,
                            std::string_view rule_id) {
    for (const Decision& decision : decisions) {
        if (decision.identity.pid == pid && decision.rule_id == rule_id) return &decision;
    }
    return nullptr;
}

inline std::set<pid_t> pids_of(const std::vector<Decision>& decisions) {
    std::set<pid_t> pids;
    for (const Decision& decision : decisions) pids.insert(decision.identity.pid);
    return pids;
}

}  // namespace gpukill::guard::test
