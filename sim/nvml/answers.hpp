#pragma once
// Small helpers shared by the entry points: how NVML answers with strings and how a device
// query reports a lost GPU or a configured failure.

#include <string_view>

#include "nvml/driver_session.hpp"

namespace gpusim::nvml {

// Copies `text` with its terminator into a caller buffer of `length` bytes, or says why not.
nvmlReturn_t copy_string(std::string_view text, char* out, unsigned int length);

// NVML_ERROR_GPU_IS_LOST for a lost GPU, else the code of `failure` (NVML_SUCCESS for none).
nvmlReturn_t metric_status(const GpuSpec& gpu, Failure failure);

}  // namespace gpusim::nvml
