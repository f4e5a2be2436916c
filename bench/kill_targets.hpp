// Where the kill benchmark's targets come from and how their end is checked: idle
// children of the benchmark ("plain"), or gpusim workloads on a simulated host that hold
// GPU memory ("gpusim"). Either way they are members of one TargetGroup, so only
// processes the benchmark started are ever signalled.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

#include "sim_host.hpp"
#include "target_group.hpp"

namespace gpukill::bench {

struct TargetSet {
    std::vector<pid_t> pids;
    std::vector<bool> ignores_term;  // parallel to pids
};

class TargetSource {
  public:
    // sim == nullptr: plain idle processes that hold no GPU.
    TargetSource(TargetGroup& group, SimHost* sim);

    const char* variant() const { return sim_ != nullptr ? "gpusim" : "plain"; }
    std::string description() const;

    // Starts `count` targets, `ignoring` of them spread evenly among the rest ignoring
    // SIGTERM; gpusim workloads alternate between GPU 0 and 1 and allocate `memory` each.
    // Returns once every one is ready to be signalled.
    TargetSet start(std::size_t count, std::size_t ignoring, const std::string& memory = "1G");

    // After `command` claimed to have ended them: waits for each target to be reaped and
    // checks it ended as it should (on SIGTERM: killed by it, or exit 0 from a handler;
    // one ignoring SIGTERM killed by SIGKILL) and, on the simulated host, that no GPU
    // memory is left in use. Throws naming `command` otherwise. Returns the CLOCK_MONOTONIC
    // time of the last exit, and drops the targets' records.
    double confirm_ended(const TargetSet& targets, const std::string& command);

    // After `command` that must leave them alone (a dry run): checks every target is still
    // running, then kills and reaps them. Throws naming `command` otherwise.
    void confirm_untouched_and_discard(const TargetSet& targets, const std::string& command);

  private:
    void check_memory_released(const std::string& command) const;

    TargetGroup& group_;
    SimHost* sim_;
};

}  // namespace gpukill::bench
