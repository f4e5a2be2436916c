// NVML entry points: memory, utilisation, thermal, power, ECC and modes. Every call looks at
// the current state (records, holder locks, /proc), so it answers like a live driver.

#include <algorithm>
#include <cmath>
#include <ctime>

#include <sys/stat.h>

#include "nvml/answers.hpp"
#include "nvml/driver_session.hpp"
#include "state/usage.hpp"

using gpusim::nvml::DeviceContext;
using gpusim::nvml::DriverSession;
using gpusim::nvml::metric_status;

namespace {

// Memory in use beyond the driver's reservation, or why it cannot be told.
nvmlReturn_t used_memory(const DeviceContext& device, unsigned long long* used) {
    if (const nvmlReturn_t status = metric_status(device.gpu, device.gpu.memory_info_failure);
        status != NVML_SUCCESS) {
        return status;
    }
    auto usage = gpusim::survey_gpu_collecting(device.driver.root, device.index);
    if (!usage) return NVML_ERROR_UNKNOWN;
    *used = usage->used_bytes();
    return NVML_SUCCESS;
}

unsigned long long remaining(unsigned long long total, unsigned long long taken) {
    return taken < total ? total - taken : 0;
}

// Runs `answer(usage)` for a metric that depends on what the GPU is doing.
template <class Answer>
nvmlReturn_t with_usage(const DeviceContext& device, gpusim::Failure failure, Answer answer) {
    if (const nvmlReturn_t status = metric_status(device.gpu, failure); status != NVML_SUCCESS) {
        return status;
    }
    auto usage = gpusim::survey_gpu_collecting(device.driver.root, device.index);
    if (!usage) return NVML_ERROR_UNKNOWN;
    answer(*usage);
    return NVML_SUCCESS;
}

// Seconds since `gpusim init` wrote the host's configuration (it is never rewritten): the
// simulated driver's uptime, from which its energy counter counts.
double seconds_since_init(const DeviceContext& device) {
    struct stat st {};
    if (::stat(device.driver.root.config_file().c_str(), &st) != 0) return 0;
    timespec now{};
    ::clock_gettime(CLOCK_REALTIME, &now);
    const double elapsed = static_cast<double>(now.tv_sec - st.st_mtim.tv_sec) +
                           static_cast<double>(now.tv_nsec - st.st_mtim.tv_nsec) / 1e9;
    return std::max(elapsed, 0.0);
}

unsigned int milliwatts(double watts) {
    return static_cast<unsigned int>(std::lround(watts * 1000.0));
}

}  // namespace

extern "C" {

// The v1 view counts the driver's reservation as used, as NVML does.
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        if (memory == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
        unsigned long long used = 0;
        if (const nvmlReturn_t status = used_memory(context, &used); status != NVML_SUCCESS) {
            return status;
        }
        const unsigned long long total = context.gpu.memory_total_bytes;
        memory->total = total;
        memory->used = std::min(total, used + context.gpu.memory_reserved_bytes);
        memory->free = remaining(total, memory->used);
        return NVML_SUCCESS;
    });
}

#ifndef GPUSIM_LEGACY_DRIVER
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t* memory) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        if (memory == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
        if (memory->version != nvmlMemory_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
        unsigned long long used = 0;
        if (const nvmlReturn_t status = used_memory(context, &used); status != NVML_SUCCESS) {
            return status;
        }
        const unsigned long long total = context.gpu.memory_total_bytes;
        memory->total = total;
        memory->reserved = context.gpu.memory_reserved_bytes;
        memory->used = std::min(used, remaining(total, memory->reserved));
        memory->free = remaining(total, memory->reserved + memory->used);
        return NVML_SUCCESS;
    });
}
#endif

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t* utilization) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        if (utilization == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
        return with_usage(
            context, context.gpu.base_utilization_percent.failure,
            [&](const gpusim::GpuUsage& usage) {
                utilization->gpu = gpusim::gpu_utilization_percent(context.gpu, usage);
                utilization->memory = gpusim::memory_utilization_percent(context.gpu, usage);
            });
    });
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType,
                                      unsigned int* temp) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        if (temp == nullptr || sensorType != NVML_TEMPERATURE_GPU) {
            return NVML_ERROR_INVALID_ARGUMENT;
        }
        const auto& metric = context.gpu.temperature_celsius;
        if (const nvmlReturn_t status = metric_status(context.gpu, metric.failure);
            status != NVML_SUCCESS) {
            return status;
        }
        *temp = metric.value;
        return NVML_SUCCESS;
    });
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int* power) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        if (power == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
        return with_usage(context, context.gpu.power_watts.failure,
                          [&](const gpusim::GpuUsage& usage) {
                              *power = milliwatts(gpusim::power_draw_watts(context.gpu, usage));
                          });
    });
}

// Millijoules since the driver loaded. gpusim keeps no running integral (it has no daemon),
// so the counter is the idle draw over the time since init: it only ever grows, and a
// reader's rate between two readings is the idle power.
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long* energy) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        if (energy == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
        const auto& metric = context.gpu.power_watts;
        if (const nvmlReturn_t status = metric_status(context.gpu, metric.failure);
            status != NVML_SUCCESS) {
            return status;
        }
        *energy = static_cast<unsigned long long>(
            std::llround(metric.value * seconds_since_init(context) * 1000.0));
        return NVML_SUCCESS;
    });
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int* limit) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        if (limit == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
        const auto& metric = context.gpu.power_limit_watts;
        if (const nvmlReturn_t status = metric_status(context.gpu, metric.failure);
            status != NVML_SUCCESS) {
            return status;
        }
        *limit = milliwatts(metric.value);
        return NVML_SUCCESS;
    });
}

// No separate limit is configured, so the enforced limit is the management limit.
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int* limit) {
    return nvmlDeviceGetPowerManagementLimit(device, limit);
}

// The scenario gives one count per error type; volatile and aggregate counters both show it
// (a host that has not rebooted since the errors).
nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
                                         nvmlEccCounterType_t counterType,
                                         unsigned long long* eccCounts) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        const bool known_type = errorType == NVML_MEMORY_ERROR_TYPE_CORRECTED ||
                                errorType == NVML_MEMORY_ERROR_TYPE_UNCORRECTED;
        const bool known_counter =
            counterType == NVML_VOLATILE_ECC || counterType == NVML_AGGREGATE_ECC;
        if (eccCounts == nullptr || !known_type || !known_counter) {
            return NVML_ERROR_INVALID_ARGUMENT;
        }
        const auto& metric = errorType == NVML_MEMORY_ERROR_TYPE_CORRECTED
                                 ? context.gpu.ecc_errors_corrected
                                 : context.gpu.ecc_errors_uncorrected;
        if (const nvmlReturn_t status = metric_status(context.gpu, metric.failure);
            status != NVML_SUCCESS) {
            return status;
        }
        *eccCounts = metric.value;
        return NVML_SUCCESS;
    });
}

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t* mode) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        if (mode == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
        const auto& metric = context.gpu.persistence_mode;
        if (const nvmlReturn_t status = metric_status(context.gpu, metric.failure);
            status != NVML_SUCCESS) {
            return status;
        }
        *mode = metric.value ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
        return NVML_SUCCESS;
    });
}

// The simulator has no pending MIG change: current and pending modes agree.
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int* currentMode,
                                  unsigned int* pendingMode) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        if (currentMode == nullptr || pendingMode == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
        const auto& metric = context.gpu.mig_mode;
        if (const nvmlReturn_t status = metric_status(context.gpu, metric.failure);
            status != NVML_SUCCESS) {
            return status;
        }
        *currentMode = metric.value ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE;
        *pendingMode = *currentMode;
        return NVML_SUCCESS;
    });
}

}  // extern "C"
