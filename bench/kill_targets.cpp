#include "kill_targets.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <stdexcept>

namespace gpukill::bench {
namespace {

// How long targets get to be reaped once the command that ended them has returned. The
// reaper takes microseconds; this only bounds a failure.
constexpr double kReapTimeoutS = 5;
// A dry run that wrongly signalled would show within this (SIGTERM ends a target at once).
constexpr double kUntouchedCheckS = 0.02;

bool ended_on_term(const TargetExit& exit) {
    return killed_by(exit, SIGTERM) || (exit.code == CLD_EXITED && exit.status == 0);
}

// True for `ignoring` of `count` indexes, spread evenly (every 4th for 50 of 200).
bool spread(std::size_t index, std::size_t count, std::size_t ignoring) {
    return (index + 1) * ignoring / count > index * ignoring / count;
}

}  // namespace

TargetSource::TargetSource(TargetGroup& group, SimHost* sim) : group_(group), sim_(sim) {}

std::string TargetSource::description() const {
    if (sim_ != nullptr) {
        return "a `gpusim run` workload holding simulated GPU memory (the driver lists it; "
               "it holds the device files)";
    }
    return "an idle process forked by the benchmark, holding no GPU";
}

TargetSet TargetSource::start(std::size_t count, std::size_t ignoring, const std::string& memory) {
    TargetSet set;
    for (std::size_t i = 0; i < count; ++i) set.ignores_term.push_back(spread(i, count, ignoring));

    if (sim_ != nullptr) {
        std::vector<WorkloadSpec> specs;
        for (std::size_t i = 0; i < count; ++i) {
            specs.push_back({.gpu = static_cast<unsigned>(i % 2),
                             .memory = memory,
                             .on_term = set.ignores_term[i] ? OnTerm::ignore : OnTerm::exit});
        }
        set.pids = sim_->start(group_, specs);
        return set;
    }
    // Idle targets are forked in two batches (one per disposition), then dealt out in the
    // spread order so the two kinds interleave on the command line.
    const auto ending = group_.start_idle(count - ignoring, OnTerm::exit);
    const auto ignorers = group_.start_idle(ignoring, OnTerm::ignore);
    std::size_t next_ending = 0;
    std::size_t next_ignorer = 0;
    for (std::size_t i = 0; i < count; ++i) {
        set.pids.push_back(set.ignores_term[i] ? ignorers[next_ignorer++] : ending[next_ending++]);
    }
    return set;
}

double TargetSource::confirm_ended(const TargetSet& targets, const std::string& command) {
    const auto left = group_.await_exits(targets.pids, kReapTimeoutS);
    if (!left.empty()) {
        throw std::runtime_error(std::to_string(left.size()) + " of " +
                                 std::to_string(targets.pids.size()) + " targets (first: PID " +
                                 std::to_string(left.front()) + ") still running " +
                                 std::to_string(static_cast<int>(kReapTimeoutS)) + " s after `" +
                                 command + "` returned");
    }
    double last_s = 0;
    for (std::size_t i = 0; i < targets.pids.size(); ++i) {
        const TargetExit exit = *group_.exit_of(targets.pids[i]);
        const bool as_expected =
            targets.ignores_term[i] ? killed_by(exit, SIGKILL) : ended_on_term(exit);
        if (!as_expected) {
            throw std::runtime_error(
                "target " + std::to_string(targets.pids[i]) +
                (targets.ignores_term[i] ? " (ignoring SIGTERM)" : " (ending on SIGTERM)") +
                " ended with " + describe(exit) + " after `" + command + "`");
        }
        last_s = std::max(last_s, exit.at_s);
    }
    group_.forget(targets.pids);
    check_memory_released(command);
    return last_s;
}

void TargetSource::confirm_untouched_and_discard(const TargetSet& targets,
                                                 const std::string& command) {
    const auto running = group_.await_exits(targets.pids, kUntouchedCheckS);
    const bool all_running = running.size() == targets.pids.size();
    for (pid_t pid : targets.pids) group_.kill_member(pid);
    if (!group_.await_exits(targets.pids, kReapTimeoutS).empty()) {
        throw std::runtime_error("a target survived SIGKILL from the benchmark");
    }
    group_.forget(targets.pids);
    if (!all_running) {
        throw std::runtime_error("`" + command + "` ended a target it must leave alone");
    }
}

void TargetSource::check_memory_released(const std::string& command) const {
    if (sim_ == nullptr) return;
    // Independent of gpukill's own verification: the simulated driver's books.
    if (const auto used = sim_->memory_used(); used != 0) {
        throw std::runtime_error(std::to_string(used) +
                                 " bytes of simulated GPU memory still in use after `" + command +
                                 "`");
    }
}

}  // namespace gpukill::bench
