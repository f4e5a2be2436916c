// NVML entry points for the telemetry dcgm-exporter's default counters read: clocks, the
// memory temperature and NVLink data counters (field values), PCIe replays, the video
// engines and remapped rows. Values come from the scenario; the SM clock follows the
// utilisation (state/usage.hpp).

#include <climits>
#include <ctime>

#include "nvml/answers.hpp"
#include "nvml/driver_session.hpp"
#include "state/usage.hpp"

using gpusim::nvml::DeviceContext;
using gpusim::nvml::DriverSession;
using gpusim::nvml::metric_status;

namespace {

// The period NVML says the video engines' utilisation was sampled over (microseconds).
constexpr unsigned kVideoSamplingPeriodUs = 167000;

long long now_microseconds() {
    timespec now{};
    ::clock_gettime(CLOCK_REALTIME, &now);
    return static_cast<long long>(now.tv_sec) * 1000000 + now.tv_nsec / 1000;
}

// One field of nvmlDeviceGetFieldValues, answered in place as the driver does: a field the
// GPU lacks gets its own error code; the call itself succeeds.
void answer_field(const DeviceContext& context, nvmlFieldValue_t& field) {
    field.timestamp = now_microseconds();
    field.latencyUsec = 0;
    const gpusim::GpuSpec& gpu = context.gpu;
    if (gpu.lost) {
        field.nvmlReturn = NVML_ERROR_GPU_IS_LOST;
        return;
    }
    switch (field.fieldId) {
        case NVML_FI_DEV_MEMORY_TEMP:
            field.nvmlReturn = metric_status(gpu, gpu.memory_temperature_celsius.failure);
            field.valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
            field.value.uiVal = gpu.memory_temperature_celsius.value;
            return;
        case NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX:
        case NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX:
            // gpusim moves no data over its links: the counters exist, at 0.
            if (!gpu.nvlink_remote_bus_ids) {
                field.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
            } else if (field.scopeId != UINT_MAX && field.scopeId >= NVML_NVLINK_MAX_LINKS) {
                field.nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;
            } else {
                field.nvmlReturn = NVML_SUCCESS;
                field.valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
                field.value.ullVal = 0;
            }
            return;
        default:
            field.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
    }
}

template <class T>
nvmlReturn_t metric_value(const DeviceContext& context, const gpusim::Metric<T>& metric,
                          unsigned int* out) {
    if (out == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    if (const nvmlReturn_t status = metric_status(context.gpu, metric.failure);
        status != NVML_SUCCESS) {
        return status;
    }
    *out = static_cast<unsigned int>(metric.value);
    return NVML_SUCCESS;
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type,
                                    unsigned int* clock) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        if (clock == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
        if (type == NVML_CLOCK_MEM)
            return metric_value(context, context.gpu.memory_clock_mhz, clock);
        if (type != NVML_CLOCK_SM && type != NVML_CLOCK_GRAPHICS) {
            return NVML_ERROR_NOT_SUPPORTED;  // the video clock: not simulated
        }
        if (const nvmlReturn_t status =
                metric_status(context.gpu, context.gpu.sm_clock_mhz.failure);
            status != NVML_SUCCESS) {
            return status;
        }
        auto usage = gpusim::survey_gpu_collecting(context.driver.root, context.index);
        if (!usage) return NVML_ERROR_UNKNOWN;
        *clock = gpusim::sm_clock_mhz(context.gpu, *usage);
        return NVML_SUCCESS;
    });
}

nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount,
                                      nvmlFieldValue_t* values) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        if (values == nullptr || valuesCount < 0) return NVML_ERROR_INVALID_ARGUMENT;
        for (int i = 0; i < valuesCount; ++i) answer_field(context, values[i]);
        return NVML_SUCCESS;
    });
}

nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned int* value) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        return metric_value(context, context.gpu.pcie_replay_count, value);
    });
}

nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t device, unsigned int* utilization,
                                             unsigned int* samplingPeriodUs) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        if (samplingPeriodUs == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
        *samplingPeriodUs = kVideoSamplingPeriodUs;
        return metric_value(context, context.gpu.encoder_utilization_percent, utilization);
    });
}

nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t device, unsigned int* utilization,
                                             unsigned int* samplingPeriodUs) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        if (samplingPeriodUs == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
        *samplingPeriodUs = kVideoSamplingPeriodUs;
        return metric_value(context, context.gpu.decoder_utilization_percent, utilization);
    });
}

// No remapping is ever pending: the simulator has no reset-to-apply cycle for rows.
nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int* corrRows,
                                       unsigned int* uncRows, unsigned int* isPending,
                                       unsigned int* failureOccurred) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        if (corrRows == nullptr || uncRows == nullptr || isPending == nullptr ||
            failureOccurred == nullptr) {
            return NVML_ERROR_INVALID_ARGUMENT;
        }
        const gpusim::GpuSpec& gpu = context.gpu;
        if (const nvmlReturn_t status = metric_status(gpu, gpu.remapped_rows_correctable.failure);
            status != NVML_SUCCESS) {
            return status;
        }
        *corrRows = static_cast<unsigned int>(gpu.remapped_rows_correctable.value);
        *uncRows = static_cast<unsigned int>(gpu.remapped_rows_uncorrectable.value);
        *isPending = 0;
        *failureOccurred = gpu.row_remap_failure.value ? 1U : 0U;
        return NVML_SUCCESS;
    });
}

}  // extern "C"
