#include "backends/drm/drm_metrics.hpp"

#include <fmt/format.h>

#include <string_view>

#include "backends/drm/sysfs_attribute.hpp"
#include "backends/drm/sysfs_values.hpp"

namespace gpukill::drm {
namespace {

// Reads and parses one attribute. Absent: unknown. Unreadable or not in the kernel's
// format: unknown, with a problem line naming the metric.
template <class Parse>
auto read_parsed(const std::string& path, std::string_view what, Parse parse,
                 std::vector<std::string>& problems) -> decltype(parse(std::string_view{})) {
    auto text = read_attribute(path);
    if (!text) {
        problems.push_back(fmt::format("{}: {}", what, text.error().what));
        return std::nullopt;
    }
    if (!*text) return std::nullopt;
    auto value = parse(std::string_view(**text));
    if (!value) problems.push_back(fmt::format("{}: unexpected value in {}", what, path));
    return value;
}

// The N of "<prefix>N<suffix>", e.g. ("temp", "_input", "temp2_input") -> 2.
std::optional<unsigned> channel_of(std::string_view name, std::string_view prefix,
                                   std::string_view suffix) {
    if (!name.starts_with(prefix) || !name.ends_with(suffix)) return std::nullopt;
    if (name.size() <= prefix.size() + suffix.size()) return std::nullopt;
    name.remove_prefix(prefix.size());
    name.remove_suffix(suffix.size());
    return drm_node_minor("", name);
}

// The device's hwmon directory (DEVICE/hwmon/hwmonN, the lowest N), if it has one.
std::optional<std::string> hwmon_directory(const std::string& device_dir,
                                           std::vector<std::string>& problems) {
    const std::string parent = device_dir + "/hwmon";
    auto names = list_directory(parent);
    if (!names) {
        problems.push_back(fmt::format("hwmon: {}", names.error().what));
        return std::nullopt;
    }
    if (!*names) return std::nullopt;
    std::optional<unsigned> lowest;
    for (const std::string& name : **names) {
        auto n = drm_node_minor("hwmon", name);
        if (n && (!lowest || *n < *lowest)) lowest = n;
    }
    if (!lowest) return std::nullopt;
    return fmt::format("{}/hwmon{}", parent, *lowest);
}

HwmonReading read_hwmon(const std::string& dir, std::vector<std::string>& problems) {
    HwmonReading reading;
    auto names = list_directory(dir);
    if (!names || !*names) {
        if (!names) problems.push_back(fmt::format("hwmon: {}", names.error().what));
        return reading;
    }
    std::vector<std::pair<unsigned, std::optional<std::string>>> channels;
    for (const std::string& name : **names) {
        auto n = channel_of(name, "temp", "_input");
        if (!n) continue;
        std::vector<std::string> ignored;  // a missing or odd label only loses a preference
        auto label = read_parsed(fmt::format("{}/temp{}_label", dir, *n), "temperature label",
                                 parse_text_attribute, ignored);
        channels.emplace_back(*n, std::move(label));
    }
    if (auto channel = pick_temperature_channel(channels)) {
        reading.temperature_celsius =
            read_parsed(fmt::format("{}/temp{}_input", dir, *channel), "temperature",
                        parse_millidegrees_celsius, problems);
    }
    reading.power_watts = read_parsed(dir + "/power1_average", "power", parse_microwatts, problems);
    if (!reading.power_watts) {
        reading.power_watts =
            read_parsed(dir + "/power1_input", "power", parse_microwatts, problems);
    }
    reading.power_limit_watts =
        read_parsed(dir + "/power1_cap", "power limit", parse_microwatts, problems);
    if (!reading.power_limit_watts) {
        reading.power_limit_watts =
            read_parsed(dir + "/power1_max", "power limit", parse_microwatts, problems);
    }
    // A limit of 0 W is the driver saying "none set", not a limit.
    if (reading.power_limit_watts && *reading.power_limit_watts <= 0) {
        reading.power_limit_watts.reset();
    }
    // Read even beside a power file: the counter is what energy metrics export.
    const std::string energy = dir + "/energy1_input";
    reading.energy_microjoules = read_parsed(energy, "energy", parse_unsigned_attribute, problems);
    if (reading.energy_microjoules) reading.energy_path = energy;
    return reading;
}

}  // namespace

std::optional<unsigned> pick_temperature_channel(
    const std::vector<std::pair<unsigned, std::optional<std::string>>>& channels) {
    std::optional<unsigned> lowest;
    for (const auto& [n, label] : channels) {
        if (label == "edge") return n;
        if (!lowest || n < *lowest) lowest = n;
    }
    return lowest;
}

DeviceMetrics read_device_metrics(const std::string& device_dir) {
    DeviceMetrics metrics;
    std::vector<std::string>& problems = metrics.problems;
    auto status = read_parsed(device_dir + "/power/runtime_status", "runtime status",
                              parse_text_attribute, problems);
    metrics.runtime_suspended = status == "suspended";

    // Memory counters come from the driver's bookkeeping and never wake the device.
    metrics.vram_total_bytes = read_parsed(device_dir + "/mem_info_vram_total", "memory total",
                                           parse_unsigned_attribute, problems);
    metrics.vram_used_bytes = read_parsed(device_dir + "/mem_info_vram_used", "memory used",
                                          parse_unsigned_attribute, problems);
    metrics.gtt_total_bytes = read_parsed(device_dir + "/mem_info_gtt_total", "GTT total",
                                          parse_unsigned_attribute, problems);
    metrics.gtt_used_bytes = read_parsed(device_dir + "/mem_info_gtt_used", "GTT used",
                                         parse_unsigned_attribute, problems);
    if (metrics.runtime_suspended) return metrics;

    metrics.busy_percent =
        read_parsed(device_dir + "/gpu_busy_percent", "utilization", parse_busy_percent, problems);
    if (auto hwmon = hwmon_directory(device_dir, problems)) {
        metrics.hwmon = read_hwmon(*hwmon, problems);
    }
    return metrics;
}

std::optional<std::uint64_t> read_energy_counter(const std::string& path,
                                                 std::vector<std::string>& problems) {
    return read_parsed(path, "energy", parse_unsigned_attribute, problems);
}

}  // namespace gpukill::drm
