// Gathering the facts a reset plan depends on (reset_plan.hpp) from the host: the
// effectful half of the reset preflight. Path and file reading live here; the rules
// that judge them stay pure in reset_plan.cpp.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "model/host_roots.hpp"
#include "model/snapshot.hpp"
#include "reclaim/reset_plan.hpp"

namespace gpukill::reclaim {

struct ResetFactsOptions {
    // --nvidia-smi, else GPUKILL_NVIDIA_SMI: used as given (it must be executable).
    std::optional<std::string> nvidia_smi;
    std::optional<std::string> path_env;  // $PATH, searched when no nvidia-smi is given
};

// privileged: effective uid 0 or CAP_SYS_ADMIN in /proc/self/status. The nvidia-smi to
// run. For every GPU with a PCI address: its kernel driver (SYSFS/bus/pci/devices/BUS/
// driver); for AMD GPUs the amdgpu_gpu_recover file under SYSFS/kernel/debug/dri (by
// PCI address as newer kernels name it, else by card minor) and the XGMI hive
// (SYSFS/bus/pci/devices/BUS/xgmi_hive_id, when non-zero).
ResetFacts gather_reset_facts(const Snapshot& snapshot, const HostRoots& roots,
                              const ResetFactsOptions& options);

// CAP_SYS_ADMIN (bit 21, include/uapi/linux/capability.h) is in `mask`.
bool has_cap_sys_admin(std::uint64_t mask);

// The hive id in the text of xgmi_hive_id ("0x1234abcd\n" or decimal); empty for 0
// (no hive), an empty file or junk. Pure.
std::optional<std::string> parse_xgmi_hive_id(std::string_view text);

}  // namespace gpukill::reclaim
