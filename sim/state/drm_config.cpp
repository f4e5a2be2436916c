#include "state/drm_config.hpp"

#include <array>
#include <cstdio>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace gpusim {

namespace {

using nlohmann::json;

template <class T>
json or_null(const std::optional<T>& value) {
    return value ? json(*value) : json(nullptr);
}

template <class T>
std::optional<T> optional_from(const json& in, const char* key) {
    const json& value = in.at(key);
    if (value.is_null()) return std::nullopt;
    return value.get<T>();
}

}  // namespace

std::string_view drm_vendor_name(DrmVendor vendor) {
    switch (vendor) {
        case DrmVendor::amd:
            return "amd";
        case DrmVendor::intel:
            return "intel";
        case DrmVendor::other:
            return "other";
    }
    return "other";
}

std::optional<DrmVendor> drm_vendor_from_name(std::string_view name) {
    if (name == "amd") return DrmVendor::amd;
    if (name == "intel") return DrmVendor::intel;
    if (name == "other") return DrmVendor::other;
    return std::nullopt;
}

DrmGpuSpec default_drm_gpu(DrmVendor vendor, unsigned index) {
    DrmGpuSpec gpu;
    gpu.vendor = vendor;
    std::array<char, 16> bus{};
    std::snprintf(bus.data(), bus.size(), "0000:%02x:00.0", (0x03 + index) & 0xFF);
    gpu.pci_bus_id = bus.data();
    switch (vendor) {
        case DrmVendor::amd:
            gpu.driver = "amdgpu";
            gpu.vendor_id = 0x1002;
            gpu.device_id = 0x740F;  // Aldebaran: Instinct MI210
            gpu.pci_class = 0x038000;
            gpu.product_name = "AMD Instinct MI210";
            gpu.memory_total_bytes = 64ULL << 30;
            gpu.memory_used_bytes = 0;
            gpu.gtt_total_bytes = 32ULL << 30;
            gpu.gtt_used_bytes = 0;
            gpu.busy_percent = 0;
            gpu.temperature_celsius = 35;
            gpu.power_watts = 42;
            gpu.power_limit_watts = 300;
            break;
        case DrmVendor::intel:
            gpu.driver = "i915";
            gpu.vendor_id = 0x8086;
            gpu.device_id = 0x0BDA;  // Ponte Vecchio: Data Center GPU Max 1100
            gpu.pci_class = 0x038000;
            gpu.power_watts = 35;
            gpu.power_limit_watts = 300;
            gpu.energy_only = true;
            break;
        case DrmVendor::other:
            gpu.pci_class = 0x030000;
            break;
    }
    return gpu;
}

json drm_gpus_to_json(const std::vector<DrmGpuSpec>& gpus) {
    json out = json::array();
    for (const DrmGpuSpec& gpu : gpus) {
        out.push_back(json{
            {"vendor", std::string(drm_vendor_name(gpu.vendor))},
            {"driver", gpu.driver},
            {"vendor_id", gpu.vendor_id},
            {"device_id", gpu.device_id},
            {"pci_class", gpu.pci_class},
            {"pci_bus_id", gpu.pci_bus_id},
            {"product_name", or_null(gpu.product_name)},
            {"memory_total_bytes", or_null(gpu.memory_total_bytes)},
            {"memory_used_bytes", or_null(gpu.memory_used_bytes)},
            {"gtt_total_bytes", or_null(gpu.gtt_total_bytes)},
            {"gtt_used_bytes", or_null(gpu.gtt_used_bytes)},
            {"busy_percent", or_null(gpu.busy_percent)},
            {"temperature_celsius", or_null(gpu.temperature_celsius)},
            {"power_watts", or_null(gpu.power_watts)},
            {"power_limit_watts", or_null(gpu.power_limit_watts)},
            {"energy_only", gpu.energy_only},
            {"no_hwmon", gpu.no_hwmon},
        });
    }
    return out;
}

std::vector<DrmGpuSpec> drm_gpus_from_json(const json& in) {
    std::vector<DrmGpuSpec> gpus;
    for (const json& entry : in) {
        DrmGpuSpec gpu;
        auto vendor = drm_vendor_from_name(entry.at("vendor").get<std::string>());
        if (!vendor) throw std::invalid_argument("unknown DRM vendor " + entry.at("vendor").dump());
        gpu.vendor = *vendor;
        gpu.driver = entry.at("driver").get<std::string>();
        gpu.vendor_id = entry.at("vendor_id").get<unsigned>();
        gpu.device_id = entry.at("device_id").get<unsigned>();
        gpu.pci_class = entry.at("pci_class").get<unsigned>();
        gpu.pci_bus_id = entry.at("pci_bus_id").get<std::string>();
        gpu.product_name = optional_from<std::string>(entry, "product_name");
        gpu.memory_total_bytes = optional_from<std::uint64_t>(entry, "memory_total_bytes");
        gpu.memory_used_bytes = optional_from<std::uint64_t>(entry, "memory_used_bytes");
        gpu.gtt_total_bytes = optional_from<std::uint64_t>(entry, "gtt_total_bytes");
        gpu.gtt_used_bytes = optional_from<std::uint64_t>(entry, "gtt_used_bytes");
        gpu.busy_percent = optional_from<unsigned>(entry, "busy_percent");
        gpu.temperature_celsius = optional_from<unsigned>(entry, "temperature_celsius");
        gpu.power_watts = optional_from<double>(entry, "power_watts");
        gpu.power_limit_watts = optional_from<double>(entry, "power_limit_watts");
        gpu.energy_only = entry.at("energy_only").get<bool>();
        gpu.no_hwmon = entry.at("no_hwmon").get<bool>();
        gpus.push_back(std::move(gpu));
    }
    if (gpus.size() > kMaxDrmGpus) throw std::invalid_argument("too many DRM GPUs in state");
    return gpus;
}

}  // namespace gpusim
