// Pure parsers for the value formats the kernel prints in the DRM, PCI and hwmon sysfs
// attributes the DRM backend reads. Each takes a file's whole text (with its trailing
// newline) and returns the value, or empty for text that is not in the kernel's format.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/gpu.hpp"

namespace gpukill::drm {

// PCI ids and class as sysfs prints them: "0x1002\n", "0x030000\n" (the "0x" is required).
std::optional<std::uint32_t> parse_hex_attribute(std::string_view text);

// An unsigned decimal such as "206141652992\n" (bytes, microwatts, microjoules, ids).
std::optional<std::uint64_t> parse_unsigned_attribute(std::string_view text);

// A signed decimal such as "-5000\n" (hwmon temperatures may be below zero).
std::optional<std::int64_t> parse_signed_attribute(std::string_view text);

// Free text (product_name, unique_id, a module's version, hwmon labels) without its
// newline; empty when the driver printed nothing, as amdgpu does for cards without a FRU.
std::optional<std::string> parse_text_attribute(std::string_view text);

// hwmon tempN_input: millidegrees Celsius, rounded to the nearest degree.
std::optional<int> parse_millidegrees_celsius(std::string_view text);

// hwmon powerN_average / powerN_input / powerN_cap / powerN_max: microwatts, as watts.
std::optional<double> parse_microwatts(std::string_view text);

// amdgpu gpu_busy_percent: 0-100.
std::optional<unsigned> parse_busy_percent(std::string_view text);

// The vendor a PCI vendor id names: 0x1002 AMD, 0x8086 Intel, 0x10de NVIDIA, else other.
Vendor vendor_from_pci_id(std::uint32_t vendor_id);

// Whether a PCI class code (the 24-bit value of device/class) is a GPU's: a display
// controller (0x03xxxx: VGA, 3D, other) or a processing accelerator (0x12xxxx), which is
// how AMD Instinct MI300 parts present themselves. Anything else (bridges, audio, CPU
// functions, crypto engines) is never a GPU.
bool is_gpu_pci_class(std::uint32_t pci_class);

// The N of a DRM node name with the given prefix: ("card", "card0") -> 0,
// ("renderD", "renderD128") -> 128. Connectors ("card0-DP-1") and anything else: empty.
std::optional<unsigned> drm_node_minor(std::string_view prefix, std::string_view name);

// One reading of an energy counter (hwmon energyN_input, microjoules).
struct EnergySample {
    std::uint64_t microjoules = 0;
    std::chrono::steady_clock::time_point at;
};

// Average power between two readings of one counter. Empty when the counter went
// backwards (wrapped, or the driver reset it) or no time passed between them.
std::optional<double> power_from_energy(const EnergySample& earlier, const EnergySample& later);

}  // namespace gpukill::drm
