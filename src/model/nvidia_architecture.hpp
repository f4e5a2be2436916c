// NVIDIA GPU architectures as NVML numbers them (nvmlDeviceArchitecture_t), and
// what gpukill needs to know about them: since Ampere, a GPU with NVLink can be reset
// on its own; before, every GPU it is linked to must be reset in the same command.
#pragma once

#include <optional>
#include <string>

namespace gpukill {

inline constexpr unsigned kNvmlArchKepler = 2;
inline constexpr unsigned kNvmlArchMaxwell = 3;
inline constexpr unsigned kNvmlArchPascal = 4;
inline constexpr unsigned kNvmlArchVolta = 5;
inline constexpr unsigned kNvmlArchTuring = 6;
inline constexpr unsigned kNvmlArchAmpere = 7;
inline constexpr unsigned kNvmlArchAda = 8;
inline constexpr unsigned kNvmlArchHopper = 9;
inline constexpr unsigned kNvmlArchBlackwell = 10;
inline constexpr unsigned kNvmlArchUnknown = 0xFFFFFFFFU;

// "volta", "ampere", ...; empty for numbers NVML does not define (or newer ones).
std::optional<std::string> nvml_architecture_name(unsigned architecture);

// The name's number ("volta" -> 5), for scenarios and tests; empty for unknown names.
std::optional<unsigned> nvml_architecture_from_name(const std::string& name);

// True for Kepler..Turing: NVLink-connected GPUs of these parts reset together.
// False for Ampere and newer, and for numbers NVML does not define.
bool nvlink_peers_reset_together(unsigned architecture);

}  // namespace gpukill
