#pragma once
// The simulated host's DRM GPUs (AMD, Intel, any other DRM driver): what `gpusim init`
// lays out under DIR/sys and DIR/dev in the kernel's formats (cli/drm_layout.hpp), so
// gpukill's DRM backend reads them as it reads a real host. Written once to
// DIR/gpusim/config.json with the rest of the configuration.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace gpusim {

inline constexpr std::size_t kMaxDrmGpus = 16;

enum class DrmVendor { amd, intel, other };

struct DrmGpuSpec {
    DrmVendor vendor = DrmVendor::amd;
    std::string driver;      // the kernel driver: "amdgpu", "i915", "xe", ...
    unsigned vendor_id = 0;  // PCI vendor: 0x1002, 0x8086, ...
    unsigned device_id = 0;  // PCI device id
    unsigned pci_class = 0;  // 0x030000 VGA, 0x038000 display, 0x120000 accelerator
    std::string pci_bus_id;  // sysfs spelling: "0000:03:00.0"
    std::optional<std::string> product_name;  // amdgpu's product_name file
    // amdgpu only (mem_info_*, gpu_busy_percent): other drivers publish none of these.
    std::optional<std::uint64_t> memory_total_bytes;
    std::optional<std::uint64_t> memory_used_bytes;
    std::optional<std::uint64_t> gtt_total_bytes;
    std::optional<std::uint64_t> gtt_used_bytes;
    std::optional<unsigned> busy_percent;
    // hwmon: temperature, power (average) or, energy_only, an energy counter; the limit.
    std::optional<unsigned> temperature_celsius;
    std::optional<double> power_watts;
    std::optional<double> power_limit_watts;
    bool energy_only = false;  // i915/xe: energy1_input instead of power1_average
    bool no_hwmon = false;     // no hwmon directory at all (MI250 under some kernels)
};

std::string_view drm_vendor_name(DrmVendor vendor);
std::optional<DrmVendor> drm_vendor_from_name(std::string_view name);

// The defaults of a DRM GPU of `vendor`, the `index`-th DRM GPU of the scenario:
//   amd:   amdgpu, AMD Instinct MI210 (0x740f, class 0x038000), 64 GiB, hwmon with power
//   intel: i915, Data Center GPU Max 1100 (0x0bda, class 0x038000), hwmon with energy only
//   other: the driver and vendor id must be given; class 0x030000, no metrics
// and bus 0000:(0x03 + index):00.0.
DrmGpuSpec default_drm_gpu(DrmVendor vendor, unsigned index);

nlohmann::json drm_gpus_to_json(const std::vector<DrmGpuSpec>& gpus);
// Throws nlohmann's exceptions on a malformed document (config_from_json catches them).
std::vector<DrmGpuSpec> drm_gpus_from_json(const nlohmann::json& json);

}  // namespace gpusim
