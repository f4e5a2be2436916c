// NVML entry points: initialisation, error strings and system queries.

#include "nvml/answers.hpp"
#include "nvml/driver_session.hpp"

using gpusim::nvml::DriverSession;
using gpusim::nvml::LoadedDriver;

extern "C" {

nvmlReturn_t nvmlInit_v2(void) {
    return DriverSession::instance().init();
}

nvmlReturn_t nvmlInit(void) {
    return DriverSession::instance().init();
}

// NO_GPUS and NO_ATTACH change nothing here: a simulated host always attaches, and one with
// no GPUs initialises anyway.
nvmlReturn_t nvmlInitWithFlags(unsigned int /*flags*/) {
    return DriverSession::instance().init();
}

nvmlReturn_t nvmlShutdown(void) {
    return DriverSession::instance().shutdown();
}

const char* nvmlErrorString(nvmlReturn_t result) {
    switch (result) {
        case NVML_SUCCESS:
            return "Success";
        case NVML_ERROR_UNINITIALIZED:
            return "Uninitialized";
        case NVML_ERROR_INVALID_ARGUMENT:
            return "Invalid Argument";
        case NVML_ERROR_NOT_SUPPORTED:
            return "Not Supported";
        case NVML_ERROR_NO_PERMISSION:
            return "Insufficient Permissions";
        case NVML_ERROR_ALREADY_INITIALIZED:
            return "Already Initialized";
        case NVML_ERROR_NOT_FOUND:
            return "Not Found";
        case NVML_ERROR_INSUFFICIENT_SIZE:
            return "Insufficient Size";
        case NVML_ERROR_INSUFFICIENT_POWER:
            return "Insufficient External Power";
        case NVML_ERROR_DRIVER_NOT_LOADED:
            return "Driver Not Loaded";
        case NVML_ERROR_TIMEOUT:
            return "Timeout";
        case NVML_ERROR_IRQ_ISSUE:
            return "Interrupt Request Issue";
        case NVML_ERROR_LIBRARY_NOT_FOUND:
            return "NVML Shared Library Not Found";
        case NVML_ERROR_FUNCTION_NOT_FOUND:
            return "Function Not Found";
        case NVML_ERROR_CORRUPTED_INFOROM:
            return "Corrupted infoROM";
        case NVML_ERROR_GPU_IS_LOST:
            return "GPU is lost";
        case NVML_ERROR_RESET_REQUIRED:
            return "GPU requires restart";
        case NVML_ERROR_OPERATING_SYSTEM:
            return "The operating system has blocked the request";
        case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
            return "RM has detected an NVML/RM version mismatch";
        case NVML_ERROR_IN_USE:
            return "In use by another client";
        case NVML_ERROR_MEMORY:
            return "Insufficient Memory";
        case NVML_ERROR_NO_DATA:
            return "No data";
        case NVML_ERROR_VGPU_ECC_NOT_SUPPORTED:
            return "ECC is not supported for this vGPU";
        case NVML_ERROR_INSUFFICIENT_RESOURCES:
            return "Insufficient resources";
        case NVML_ERROR_FREQ_NOT_SUPPORTED:
            return "Frequency not supported";
        case NVML_ERROR_ARGUMENT_VERSION_MISMATCH:
            return "Argument version mismatch";
        case NVML_ERROR_DEPRECATED:
            return "Deprecated";
        case NVML_ERROR_UNKNOWN:
            return "Unknown Error";
    }
    return "Unknown Error";
}

nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length) {
    return DriverSession::instance().with_driver([&](const LoadedDriver& driver) {
        return gpusim::nvml::copy_string(driver.config.driver.version, version, length);
    });
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char* version, unsigned int length) {
    return DriverSession::instance().with_driver([&](const LoadedDriver& driver) {
        return gpusim::nvml::copy_string(driver.config.driver.nvml_version, version, length);
    });
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* cudaDriverVersion) {
    return DriverSession::instance().with_driver([&](const LoadedDriver& driver) {
        if (cudaDriverVersion == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
        *cudaDriverVersion = driver.config.driver.cuda_version;
        return NVML_SUCCESS;
    });
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* cudaDriverVersion) {
    return nvmlSystemGetCudaDriverVersion(cudaDriverVersion);
}

}  // extern "C"
