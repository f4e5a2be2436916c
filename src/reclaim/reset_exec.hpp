// Carrying out a reset: the vendor's documented path, one group at a time. The only
// place `gpukill reset` touches a GPU. NVIDIA: `nvidia-smi -r -i <bus id>[,...]` (NVML
// has no public reset), run with no shell and a timeout, its output kept. AMD:
// reading DEBUGFS/dri/N/amdgpu_gpu_recover, which makes the kernel recover the GPU (and
// its XGMI hive). The caller must have closed its own NVML session first: NVML keeps the
// device files open, and nvidia-smi refuses to reset a GPU anyone has open.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/reset_results.hpp"
#include "model/reset_status.hpp"
#include "reclaim/reset_plan.hpp"

namespace gpukill::reclaim {

struct ResetExecOptions {
    // nvidia-smi resets a GPU in seconds; a hung board can take much longer.
    double command_timeout_seconds = 300;
};

// "0000:3b:00.0" -> "00000000:3B:00.0", the spelling NVML and nvidia-smi print. Pure.
std::string nvidia_smi_bus_id(std::string_view normalised);

// {nvidia_smi, "-r", "-i", "<bus id>,<bus id>"}. Pure.
std::vector<std::string> nvidia_smi_reset_command(const std::string& nvidia_smi,
                                                  const std::vector<std::string>& bus_ids);

// Resets one group of plan.gpus (indices from plan.groups). `nvidia_smi` is the tool
// from the facts.
ResetAttempt reset_group(const ResetPlan& plan, const std::vector<unsigned>& group,
                         const std::optional<std::string>& nvidia_smi,
                         const ResetExecOptions& options = {});

}  // namespace gpukill::reclaim
