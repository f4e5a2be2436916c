#include "backends/nvml/nvml_telemetry.hpp"

#include <array>
#include <cstdint>
#include <optional>

namespace gpukill::nvml {
namespace {

// A field value as an unsigned count, whatever member the driver filled; empty for a
// failed field or a negative or fractional type.
std::optional<std::uint64_t> telemetry_count(const nvmlFieldValue_t& field) {
    if (field.nvmlReturn != NVML_SUCCESS) return std::nullopt;
    switch (field.valueType) {
        case NVML_VALUE_TYPE_UNSIGNED_INT:
            return field.value.uiVal;
        case NVML_VALUE_TYPE_UNSIGNED_LONG:
            return field.value.ulVal;
        case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
            return field.value.ullVal;
        case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
            if (field.value.sllVal < 0) return std::nullopt;
            return static_cast<std::uint64_t>(field.value.sllVal);
        case NVML_VALUE_TYPE_SIGNED_INT:
            if (field.value.siVal < 0) return std::nullopt;
            return static_cast<std::uint64_t>(field.value.siVal);
        default:
            return std::nullopt;
    }
}

std::optional<unsigned> telemetry_clock(const NvmlFunctions& f, nvmlDevice_t device, int clock) {
    unsigned int mhz = 0;
    if (f.device_get_clock_info == nullptr ||
        f.device_get_clock_info(device, clock, &mhz) != NVML_SUCCESS) {
        return std::nullopt;
    }
    return mhz;
}

void read_field_values(const NvmlFunctions& f, nvmlDevice_t device, bool has_nvlink,
                       GpuReading& gpu) {
    if (f.device_get_field_values == nullptr) return;
    std::array<nvmlFieldValue_t, 3> fields{};
    fields[0].fieldId = NVML_FI_DEV_MEMORY_TEMP;
    fields[1].fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX;
    fields[1].scopeId = NVML_SCOPE_ALL_LINKS;
    fields[2].fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX;
    fields[2].scopeId = NVML_SCOPE_ALL_LINKS;
    const int count = has_nvlink ? 3 : 1;
    if (f.device_get_field_values(device, count, fields.data()) != NVML_SUCCESS) return;
    if (auto celsius = telemetry_count(fields[0]); celsius && *celsius < 1000) {
        gpu.memory_temperature_celsius = static_cast<int>(*celsius);
    }
    if (has_nvlink) {
        const auto sent = telemetry_count(fields[1]);
        const auto received = telemetry_count(fields[2]);
        if (sent && received) gpu.nvlink_data_kib = *sent + *received;
    }
}

}  // namespace

void read_telemetry(const NvmlLibrary& library, nvmlDevice_t device, bool has_nvlink,
                    GpuReading& gpu) {
    const NvmlFunctions& f = library.fn();
    gpu.sm_clock_mhz = telemetry_clock(f, device, NVML_CLOCK_SM);
    gpu.memory_clock_mhz = telemetry_clock(f, device, NVML_CLOCK_MEM);
    read_field_values(f, device, has_nvlink, gpu);
    if (f.device_get_pcie_replay_counter != nullptr) {
        unsigned int replays = 0;
        if (f.device_get_pcie_replay_counter(device, &replays) == NVML_SUCCESS) {
            gpu.pcie_replay_count = replays;
        }
    }
    unsigned int percent = 0;
    unsigned int period_us = 0;
    if (f.device_get_encoder_utilization != nullptr &&
        f.device_get_encoder_utilization(device, &percent, &period_us) == NVML_SUCCESS) {
        gpu.encoder_utilization_percent = percent;
    }
    if (f.device_get_decoder_utilization != nullptr &&
        f.device_get_decoder_utilization(device, &percent, &period_us) == NVML_SUCCESS) {
        gpu.decoder_utilization_percent = percent;
    }
    if (f.device_get_remapped_rows != nullptr) {
        unsigned int correctable = 0, uncorrectable = 0, pending = 0, failed = 0;
        if (f.device_get_remapped_rows(device, &correctable, &uncorrectable, &pending, &failed) ==
            NVML_SUCCESS) {
            gpu.remapped_rows_correctable = correctable;
            gpu.remapped_rows_uncorrectable = uncorrectable;
            gpu.row_remap_failed = failed != 0;
        }
    }
}

}  // namespace gpukill::nvml
