// What the vendor's reset answered, in gpukill's terms. Pure: `nvidia-smi -r`'s return
// codes as its manual page documents them (RETURN VALUE), and the errno of reading
// amdgpu's debugfs recovery file.
#pragma once

#include <optional>
#include <string>

namespace gpukill::reclaim {

enum class ResetFailure {
    none,         // the reset was done
    unsupported,  // the GPU or driver cannot be reset this way
    permission,   // not allowed
    lost,         // the GPU has fallen off the bus
    failed,       // anything else: see the message and the tool's output
};
const char* to_string(ResetFailure failure);

struct ResetStatus {
    ResetFailure failure = ResetFailure::none;
    std::string meaning;                // one line, e.g. "no permission (4)"
    std::optional<std::string> advice;  // what to do about it
};

// nvidia-smi's exit status: 0 success, 2 invalid argument, 3 not supported, 4 no
// permission, 6 not found, 8 power cables, 9 driver not loaded, 10 interrupt issue,
// 12 NVML library not found, 13 function not implemented, 14 infoROM corrupted, 15 GPU
// lost, 255 other; any other number is reported as unknown.
ResetStatus interpret_nvidia_smi_exit(int exit_status);

// Reading DEBUGFS/dri/N/amdgpu_gpu_recover: 0 (read fine) or the errno of open/read.
ResetStatus interpret_amdgpu_recover_errno(int errno_value);

}  // namespace gpukill::reclaim
