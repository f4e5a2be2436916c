// What carrying out a reset did: each vendor invocation (one per group of GPUs that
// reset together) and each GPU's check afterwards. Pure data, produced by src/reclaim
// (reset_exec, reset_verify) and reported by every interface.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/reset_plan.hpp"
#include "model/reset_status.hpp"

namespace gpukill::reclaim {

struct ResetAttempt {
    std::vector<unsigned> gpus;  // the group, reset by one invocation
    ResetMethod method = ResetMethod::nvidia_smi;
    std::vector<std::string> command;  // argv as run; for amdgpu {"read", PATH}
    std::optional<int> exit_status;    // nvidia-smi's, when it exited
    ResetStatus status;
    std::string output;  // what the tool printed, or what the recovery file returned
    double seconds = 0;
};

struct ResetCheck {
    unsigned gpu = 0;    // the index planned
    bool found = false;  // enumerated again (same PCI address, else UUID, else index)
    bool lost = false;
    std::optional<std::uint64_t> memory_used_after_bytes;
    // Whether used memory says anything: only where the driver's process list accounts
    // for all of it (NVML). On DRM, VRAM in use includes the kernel's own allocations.
    bool memory_judged = false;
    bool memory_free = false;             // judged, and within idle_memory_tolerance_bytes
    std::vector<pid_t> holders;           // processes tied to the GPU now
    bool ok = false;                      // found, not lost, no holders, memory free where judged
    std::optional<double> seconds_to_ok;  // from the start of verification
};

}  // namespace gpukill::reclaim
