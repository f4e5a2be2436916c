// A GPU's place among its peers, from NVML: its architecture and the devices at the
// far end of its NVLinks. `gpukill reset` needs both: before Ampere, GPUs joined by
// NVLink can only be reset together.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backends/nvml/nvml_library.hpp"
#include "model/result.hpp"

namespace gpukill::nvml {

// nvmlDeviceGetArchitecture; empty when the library lacks it or the GPU does not say.
std::optional<unsigned> read_architecture(const NvmlLibrary& library, nvmlDevice_t device);

// The normalised PCI bus ids at the far end of every active link (links 0 up to
// NVML_NVLINK_MAX_LINKS - 1, stopping at the first the device does not have), each
// once, in link order. Empty when the GPU has no NVLink (NOT_SUPPORTED) or none is
// active. An error (its NVML code in errno_value) when a query fails otherwise, and
// NVML_ERROR_FUNCTION_NOT_FOUND from a library without the NVLink entry points.
Result<std::vector<std::string>> read_nvlink_peers(const NvmlLibrary& library, nvmlDevice_t device);

}  // namespace gpukill::nvml
