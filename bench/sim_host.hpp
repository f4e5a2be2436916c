// A simulated NVIDIA host (docs/SIMULATOR.md) for the kill benchmark: gpukill loads its
// NVML library, sweeps its device files and verifies that the memory of what it killed
// came back, as on a real GPU host.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "target_group.hpp"

namespace gpukill::bench {

struct WorkloadSpec {
    unsigned gpu = 0;
    std::string memory = "1G";  // gpusim size syntax
    OnTerm on_term = OnTerm::exit;
};

class SimHost {
  public:
    // Runs `gpusim init --root ROOT` and reads what `gpusim env` says gpukill needs.
    // `gpusim` must be an absolute path (it is exec'd directly).
    SimHost(std::string gpusim, std::string root);

    // GPUKILL_NVML_LIBRARY, GPUKILL_DEVFS and GPUSIM_ROOT, as "K=V".
    const std::vector<std::string>& gpukill_env() const { return env_; }

    // Starts one `gpusim run` workload per spec as members of `group`, all at once, and
    // returns their PIDs once every one has printed its ready line (its allocation is
    // then visible through NVML). The workloads are not --background: the benchmark
    // must be their parent (target_group.hpp says why).
    std::vector<pid_t> start(TargetGroup& group, const std::vector<WorkloadSpec>& specs);

    // Bytes in use on all GPUs together, as the simulated driver counts them.
    std::uint64_t memory_used() const;

  private:
    std::string gpusim_;
    std::string root_;
    std::vector<std::string> env_;
};

}  // namespace gpukill::bench
