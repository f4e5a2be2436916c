#include "nvml/answers.hpp"

#include <cstring>

namespace gpusim::nvml {

nvmlReturn_t copy_string(std::string_view text, char* out, unsigned int length) {
    if (out == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    if (length < text.size() + 1) return NVML_ERROR_INSUFFICIENT_SIZE;
    std::memcpy(out, text.data(), text.size());
    out[text.size()] = '\0';
    return NVML_SUCCESS;
}

nvmlReturn_t metric_status(const GpuSpec& gpu, Failure failure) {
    if (gpu.lost) return NVML_ERROR_GPU_IS_LOST;
    return failure_code(failure);
}

}  // namespace gpusim::nvml
