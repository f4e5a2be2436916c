// Device metrics a DRM driver publishes in sysfs, read once per sample:
//   amdgpu: DEVICE/gpu_busy_percent, mem_info_vram_{total,used}, mem_info_gtt_{total,used}
//   hwmon (DEVICE/hwmon/hwmonN, any driver): tempN_input (the "edge" sensor, else the
//   first), power1_average else power1_input, power1_cap else power1_max (the limit),
//   and energy1_input, the energy counter (i915 and xe give it instead of power).
// A file the driver does not offer leaves the value unknown; a file that exists but
// cannot be read adds a problem line. A runtime-suspended GPU is not woken up: its
// busy percentage and hwmon sensors are not read (reading them would power it up).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpukill::drm {

struct HwmonReading {
    std::optional<int> temperature_celsius;
    std::optional<double> power_watts;
    std::optional<double> power_limit_watts;
    // The energy counter's file and its value (microjoules), where the driver has one.
    std::optional<std::string> energy_path;
    std::optional<std::uint64_t> energy_microjoules;
};

struct DeviceMetrics {
    bool runtime_suspended = false;
    std::optional<unsigned> busy_percent;
    std::optional<std::uint64_t> vram_total_bytes;
    std::optional<std::uint64_t> vram_used_bytes;
    std::optional<std::uint64_t> gtt_total_bytes;
    std::optional<std::uint64_t> gtt_used_bytes;
    HwmonReading hwmon;
    std::vector<std::string> problems;
};

// Reads the metrics of the device whose sysfs directory is `device_dir`
// (SYSFS/class/drm/cardN/device).
DeviceMetrics read_device_metrics(const std::string& device_dir);

// Reads an energy counter again (the second sample of a first power reading).
std::optional<std::uint64_t> read_energy_counter(const std::string& path,
                                                 std::vector<std::string>& problems);

// The temperature channel to show, from (N, label of tempN) for each tempN_input:
// the one labelled "edge" (amdgpu's board-edge sensor, the closest to what other
// tools call the GPU temperature), else the lowest N. Pure.
std::optional<unsigned> pick_temperature_channel(
    const std::vector<std::pair<unsigned, std::optional<std::string>>>& channels);

}  // namespace gpukill::drm
