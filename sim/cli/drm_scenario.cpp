#include "cli/drm_scenario.hpp"

#include <cctype>
#include <charconv>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "state/pci.hpp"
#include "state/size.hpp"

namespace gpusim {

namespace {

[[noreturn]] void problem(const YAML::Node& at, const std::string& what) {
    throw YAML::Exception(at.Mark(), what);
}

std::string scalar(const YAML::Node& node, const char* expected) {
    if (!node.IsScalar()) problem(node, std::string("expected ") + expected);
    return node.Scalar();
}

bool is_null(const YAML::Node& node) {
    return node.IsNull();
}

unsigned parse_number(const YAML::Node& node, unsigned max) {
    const std::string text = scalar(node, "a number");
    const bool hex = text.starts_with("0x") || text.starts_with("0X");
    const char* first = text.data() + (hex ? 2 : 0);
    const char* last = text.data() + text.size();
    unsigned value = 0;
    const auto [end, error] = std::from_chars(first, last, value, hex ? 16 : 10);
    if (error != std::errc{} || end != last || first == last || value > max) {
        problem(node,
                "expected a whole number up to " + std::to_string(max) + ", got '" + text + "'");
    }
    return value;
}

double parse_watts(const YAML::Node& node) {
    const std::string text = scalar(node, "a number of watts");
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size() || value < 0 || value > 100000.0) {
        problem(node, "expected a number of watts, got '" + text + "'");
    }
    return value;
}

bool parse_bool(const YAML::Node& node) {
    const std::string text = scalar(node, "true or false");
    if (text == "true" || text == "True" || text == "TRUE") return true;
    if (text == "false" || text == "False" || text == "FALSE") return false;
    problem(node, "expected true or false, got '" + text + "'");
}

std::uint64_t parse_bytes(const YAML::Node& node) {
    auto bytes = parse_size(scalar(node, "a size such as 64G"));
    if (!bytes) problem(node, bytes.error().message);
    return *bytes;
}

std::string parse_text(const YAML::Node& node) {
    std::string text = scalar(node, "a string");
    if (text.empty() || text.size() > 255 || text.find('\n') != std::string::npos) {
        problem(node, "expected a one-line string of 1 to 255 characters");
    }
    return text;
}

// A value, or null: the GPU does not publish it (no such file).
template <class T, class Parse>
std::optional<T> nullable(const YAML::Node& node, Parse parse) {
    if (is_null(node)) return std::nullopt;
    return parse(node);
}

using Field = std::function<void(const YAML::Node&, DrmGpuSpec&)>;

const std::map<std::string, Field, std::less<>>& fields() {
    static const std::map<std::string, Field, std::less<>> table{
        {"vendor", [](const YAML::Node&, DrmGpuSpec&) {}},  // read first, for the defaults
        {"driver",
         [](const YAML::Node& v, DrmGpuSpec& g) {
             g.driver = parse_text(v);
             if (g.driver.find('/') != std::string::npos) problem(v, "a driver name has no '/'");
         }},
        {"vendor_id",
         [](const YAML::Node& v, DrmGpuSpec& g) { g.vendor_id = parse_number(v, 0xFFFF); }},
        {"device_id",
         [](const YAML::Node& v, DrmGpuSpec& g) { g.device_id = parse_number(v, 0xFFFF); }},
        {"pci_class",
         [](const YAML::Node& v, DrmGpuSpec& g) { g.pci_class = parse_number(v, 0xFFFFFF); }},
        {"pci_bus_id",
         [](const YAML::Node& v, DrmGpuSpec& g) {
             const auto address = parse_pci_address(scalar(v, "a PCI bus id"));
             if (!address) problem(v, "expected a PCI bus id such as 0000:03:00.0");
             g.pci_bus_id = format_legacy_bus_id(*address);
             for (char& c : g.pci_bus_id) c = static_cast<char>(std::tolower(c));
         }},
        {"product_name",
         [](const YAML::Node& v, DrmGpuSpec& g) {
             g.product_name = nullable<std::string>(v, parse_text);
         }},
        {"memory_total",
         [](const YAML::Node& v, DrmGpuSpec& g) {
             g.memory_total_bytes = nullable<std::uint64_t>(v, parse_bytes);
         }},
        {"memory_used",
         [](const YAML::Node& v, DrmGpuSpec& g) {
             g.memory_used_bytes = nullable<std::uint64_t>(v, parse_bytes);
         }},
        {"gtt_total",
         [](const YAML::Node& v, DrmGpuSpec& g) {
             g.gtt_total_bytes = nullable<std::uint64_t>(v, parse_bytes);
         }},
        {"gtt_used",
         [](const YAML::Node& v, DrmGpuSpec& g) {
             g.gtt_used_bytes = nullable<std::uint64_t>(v, parse_bytes);
         }},
        {"busy_percent",
         [](const YAML::Node& v, DrmGpuSpec& g) {
             g.busy_percent =
                 nullable<unsigned>(v, [](const YAML::Node& n) { return parse_number(n, 100); });
         }},
        {"temperature_celsius",
         [](const YAML::Node& v, DrmGpuSpec& g) {
             g.temperature_celsius =
                 nullable<unsigned>(v, [](const YAML::Node& n) { return parse_number(n, 200); });
         }},
        {"power_watts", [](const YAML::Node& v,
                           DrmGpuSpec& g) { g.power_watts = nullable<double>(v, parse_watts); }},
        {"power_limit_watts",
         [](const YAML::Node& v, DrmGpuSpec& g) {
             g.power_limit_watts = nullable<double>(v, parse_watts);
         }},
        {"energy_only", [](const YAML::Node& v, DrmGpuSpec& g) { g.energy_only = parse_bool(v); }},
        {"no_hwmon", [](const YAML::Node& v, DrmGpuSpec& g) { g.no_hwmon = parse_bool(v); }},
    };
    return table;
}

// Files only amdgpu publishes; given for another driver they would be a fiction.
constexpr const char* kAmdgpuOnly[] = {"memory_total", "memory_used",  "gtt_total",
                                       "gtt_used",     "busy_percent", "product_name"};

DrmGpuSpec parse_entry(const YAML::Node& map, unsigned index) {
    if (!map.IsMap()) problem(map, "expected a mapping for a DRM GPU");
    std::set<std::string> seen;
    for (const auto& entry : map) {
        const std::string key = scalar(entry.first, "a key");
        if (!fields().contains(key)) problem(entry.first, "unknown key '" + key + "' in a DRM GPU");
        if (!seen.insert(key).second) problem(entry.first, "duplicate key '" + key + "'");
    }
    const YAML::Node vendor_node = map["vendor"];
    if (!vendor_node) problem(map, "a DRM GPU needs vendor: amd, intel or other");
    const auto vendor = drm_vendor_from_name(scalar(vendor_node, "amd, intel or other"));
    if (!vendor) problem(vendor_node, "expected amd, intel or other");

    DrmGpuSpec gpu = default_drm_gpu(*vendor, index);
    for (const auto& entry : map) fields().find(entry.first.Scalar())->second(entry.second, gpu);

    if (*vendor == DrmVendor::other) {
        if (!map["driver"]) problem(map, "a DRM GPU of vendor other needs driver:");
        if (!map["vendor_id"]) problem(map, "a DRM GPU of vendor other needs vendor_id:");
    }
    if (gpu.driver != "amdgpu") {
        for (const char* key : kAmdgpuOnly) {
            if (map[key] && !is_null(map[key])) {
                problem(map[key],
                        std::string(key) + " is published by amdgpu only, not by " + gpu.driver);
            }
        }
        // An AMD GPU on another driver (radeon) has none of amdgpu's files.
        gpu.product_name.reset();
        gpu.memory_total_bytes.reset();
        gpu.memory_used_bytes.reset();
        gpu.gtt_total_bytes.reset();
        gpu.gtt_used_bytes.reset();
        gpu.busy_percent.reset();
    }
    if (gpu.memory_used_bytes.value_or(0) > gpu.memory_total_bytes.value_or(UINT64_MAX)) {
        problem(map["memory_used"] ? map["memory_used"] : map, "memory_used exceeds memory_total");
    }
    if (gpu.gtt_used_bytes.value_or(0) > gpu.gtt_total_bytes.value_or(UINT64_MAX)) {
        problem(map["gtt_used"] ? map["gtt_used"] : map, "gtt_used exceeds gtt_total");
    }
    return gpu;
}

std::string canonical_bus_id(const std::string& text) {
    const auto address = parse_pci_address(text);
    return address ? format_bus_id(*address) : text;
}

}  // namespace

std::vector<DrmGpuSpec> parse_drm_gpus(const YAML::Node& list,
                                       const std::vector<GpuSpec>& nvidia_gpus) {
    if (!list.IsSequence()) problem(list, "expected a list of DRM GPUs");
    if (list.size() > kMaxDrmGpus) problem(list, "at most 16 DRM GPUs");
    std::set<std::string> buses;
    for (const GpuSpec& gpu : nvidia_gpus) buses.insert(canonical_bus_id(gpu.pci_bus_id));
    std::vector<DrmGpuSpec> gpus;
    for (std::size_t i = 0; i < list.size(); ++i) {
        gpus.push_back(parse_entry(list[i], static_cast<unsigned>(i)));
        if (!buses.insert(canonical_bus_id(gpus.back().pci_bus_id)).second) {
            problem(list[i], "duplicate pci_bus_id " + gpus.back().pci_bus_id);
        }
    }
    return gpus;
}

}  // namespace gpusim
