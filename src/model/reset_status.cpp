#include "model/reset_status.hpp"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace gpukill::reclaim {
namespace {

constexpr const char* kHeldAdvice =
    "see its output: \"In use by another client\" means something still has the GPU open "
    "(a process gpukill cannot see, e.g. in another PID namespace, nvidia-persistenced, a "
    "display server, DCGM or Fabric Manager); stop it and retry";

ResetStatus status(ResetFailure failure, int code, const char* what,
                   std::optional<std::string> advice = std::nullopt) {
    return {failure, fmt::format("{} ({})", what, code), std::move(advice)};
}

}  // namespace

const char* to_string(ResetFailure failure) {
    switch (failure) {
        case ResetFailure::none:
            return "none";
        case ResetFailure::unsupported:
            return "unsupported";
        case ResetFailure::permission:
            return "permission";
        case ResetFailure::lost:
            return "lost";
        case ResetFailure::failed:
            return "failed";
    }
    return "?";
}

ResetStatus interpret_nvidia_smi_exit(int exit_status) {
    switch (exit_status) {
        case 0:
            return status(ResetFailure::none, 0, "nvidia-smi reset the GPU");
        case 2:
            return status(ResetFailure::failed, 2, "nvidia-smi: a supplied argument is invalid");
        case 3:
            return status(ResetFailure::unsupported, 3,
                          "nvidia-smi: reset is not available on this GPU",
                          "boards without reset support (many GeForce cards) recover only by "
                          "reloading the NVIDIA driver or rebooting");
        case 4:
            return status(ResetFailure::permission, 4,
                          "nvidia-smi: no permission to reset this GPU", "run as root");
        case 6:
            return status(ResetFailure::failed, 6, "nvidia-smi: the GPU was not found");
        case 8:
            return status(ResetFailure::failed, 8,
                          "nvidia-smi: the GPU's external power cables are not properly attached",
                          "check the power connectors");
        case 9:
            return status(ResetFailure::failed, 9, "nvidia-smi: the NVIDIA driver is not loaded");
        case 10:
            return status(ResetFailure::failed, 10,
                          "nvidia-smi: the NVIDIA kernel driver detected an interrupt issue with "
                          "the GPU");
        case 12:
            return status(ResetFailure::failed, 12,
                          "nvidia-smi: the NVML library could not be found or loaded");
        case 13:
            return status(ResetFailure::failed, 13,
                          "nvidia-smi: this NVML does not implement the function",
                          "update the NVIDIA driver so nvidia-smi and NVML match");
        case 14:
            return status(ResetFailure::failed, 14, "nvidia-smi: the GPU's infoROM is corrupted",
                          "the board needs service; power-cycle the node");
        case 15:
            return status(ResetFailure::lost, 15,
                          "nvidia-smi: the GPU has fallen off the bus or is otherwise inaccessible",
                          "power-cycle or reboot the node");
        case 255:
            return status(ResetFailure::failed, 255,
                          "nvidia-smi: the reset failed (other or internal driver error)",
                          kHeldAdvice);
        default:
            return {ResetFailure::failed,
                    fmt::format("nvidia-smi: unknown exit status {}", exit_status), std::nullopt};
    }
}

ResetStatus interpret_amdgpu_recover_errno(int errno_value) {
    if (errno_value == 0) {
        return {ResetFailure::none, "amdgpu_gpu_recover: the kernel recovered the GPU",
                std::nullopt};
    }
    const std::string why = std::strerror(errno_value);
    if (errno_value == EACCES || errno_value == EPERM) {
        return {ResetFailure::permission, "amdgpu_gpu_recover: " + why, "run as root"};
    }
    if (errno_value == ENOENT || errno_value == ENODEV) {
        return {ResetFailure::unsupported, "amdgpu_gpu_recover: " + why,
                "the kernel offers no GPU recovery for this device"};
    }
    return {ResetFailure::failed, "amdgpu_gpu_recover: " + why, "see dmesg for amdgpu messages"};
}

}  // namespace gpukill::reclaim
