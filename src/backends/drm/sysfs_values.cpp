#include "backends/drm/sysfs_values.hpp"

#include <charconv>
#include <cmath>

#include "model/parse_util.hpp"

namespace gpukill::drm {
namespace {

// sysfs "show" functions end their value with one newline; nothing else is tolerated,
// so a truncated or foreign file is not mistaken for a value.
std::string_view strip_newline(std::string_view text) {
    if (text.ends_with('\n')) text.remove_suffix(1);
    return text;
}

}  // namespace

std::optional<std::uint32_t> parse_hex_attribute(std::string_view text) {
    text = strip_newline(text);
    if (!text.starts_with("0x") && !text.starts_with("0X")) return std::nullopt;
    text.remove_prefix(2);
    if (text.empty() || text.size() > 8 || !text::all_of_hex(text)) return std::nullopt;
    std::uint32_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
    if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
}

std::optional<std::uint64_t> parse_unsigned_attribute(std::string_view text) {
    return text::parse_int<std::uint64_t>(strip_newline(text));
}

std::optional<std::int64_t> parse_signed_attribute(std::string_view text) {
    return text::parse_int<std::int64_t>(strip_newline(text));
}

std::optional<std::string> parse_text_attribute(std::string_view text) {
    text = text::trim(text);
    if (text.empty()) return std::nullopt;
    return std::string(text);
}

std::optional<int> parse_millidegrees_celsius(std::string_view text) {
    auto millidegrees = parse_signed_attribute(text);
    if (!millidegrees) return std::nullopt;
    // Beyond any sensor's range: a garbage value rather than a temperature.
    if (*millidegrees < -273'150 || *millidegrees > 1'000'000) return std::nullopt;
    return static_cast<int>(std::lround(static_cast<double>(*millidegrees) / 1000.0));
}

std::optional<double> parse_microwatts(std::string_view text) {
    auto microwatts = parse_unsigned_attribute(text);
    if (!microwatts) return std::nullopt;
    return static_cast<double>(*microwatts) / 1e6;
}

std::optional<unsigned> parse_busy_percent(std::string_view text) {
    auto percent = text::parse_int<unsigned>(strip_newline(text));
    if (!percent || *percent > 100) return std::nullopt;
    return percent;
}

Vendor vendor_from_pci_id(std::uint32_t vendor_id) {
    switch (vendor_id) {
        case 0x1002:
            return Vendor::amd;
        case 0x8086:
            return Vendor::intel;
        case 0x10de:
            return Vendor::nvidia;
        default:
            return Vendor::other;
    }
}

bool is_gpu_pci_class(std::uint32_t pci_class) {
    const std::uint32_t base_class = pci_class >> 16;
    return base_class == 0x03 || base_class == 0x12;
}

std::optional<unsigned> drm_node_minor(std::string_view prefix, std::string_view name) {
    if (!name.starts_with(prefix)) return std::nullopt;
    name.remove_prefix(prefix.size());
    // The kernel prints minors without leading zeros; "card00" is not a node name.
    if (!text::is_canonical_decimal(name)) return std::nullopt;
    return text::parse_int<unsigned>(name);
}

std::optional<double> power_from_energy(const EnergySample& earlier, const EnergySample& later) {
    if (later.microjoules < earlier.microjoules || later.at <= earlier.at) return std::nullopt;
    const double seconds = std::chrono::duration<double>(later.at - earlier.at).count();
    return static_cast<double>(later.microjoules - earlier.microjoules) / 1e6 / seconds;
}

}  // namespace gpukill::drm
