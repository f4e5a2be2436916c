#include "host/drm_fdinfo_parse.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

#include "model/parse_util.hpp"
#include "model/pci_bus_id.hpp"

namespace gpukill {
namespace {

struct KeyValue {
    std::string_view key;
    std::string_view value;
};

// "key:<whitespace>value" lines; lines without a colon are skipped.
std::vector<KeyValue> key_values(std::string_view text) {
    std::vector<KeyValue> pairs;
    text::for_each_line(text, [&](std::string_view line) {
        const auto colon = line.find(':');
        if (colon == std::string_view::npos) return;
        pairs.push_back({text::trim(line.substr(0, colon)), text::trim(line.substr(colon + 1))});
    });
    return pairs;
}

struct NumberWithUnit {
    std::uint64_t number = 0;
    std::string_view unit;  // "", "KiB", "ns", ...
};

// "1024 KiB", "25662044495 ns", "0": digits, then optional whitespace and a unit.
std::optional<NumberWithUnit> number_with_unit(std::string_view value) {
    std::size_t digits = 0;
    while (digits < value.size() && text::is_digit(value[digits])) ++digits;
    auto number = text::parse_int<std::uint64_t>(value.substr(0, digits));
    if (!number) return std::nullopt;
    return NumberWithUnit{*number, text::trim(value.substr(digits))};
}

std::optional<std::uint64_t> times(std::uint64_t number, std::uint64_t factor) {
    if (number > std::numeric_limits<std::uint64_t>::max() / factor) return std::nullopt;
    return number * factor;
}

// A memory size. Bytes without a unit; the kernel prints KiB and MiB (old amdgpu "kB",
// which it computed by dividing by 1024). GiB accepted for drivers that may use it.
std::optional<std::uint64_t> parse_size(std::string_view value) {
    auto parsed = number_with_unit(value);
    if (!parsed) return std::nullopt;
    const std::string_view unit = parsed->unit;
    if (unit.empty() || unit == "B") return parsed->number;
    if (unit == "KiB" || unit == "kB" || unit == "KB") return times(parsed->number, 1ULL << 10);
    if (unit == "MiB") return times(parsed->number, 1ULL << 20);
    if (unit == "GiB") return times(parsed->number, 1ULL << 30);
    return std::nullopt;
}

std::optional<std::uint64_t> parse_ns(std::string_view value) {
    auto parsed = number_with_unit(value);
    if (!parsed || !(parsed->unit.empty() || parsed->unit == "ns")) return std::nullopt;
    return parsed->number;
}

std::optional<std::uint64_t> parse_count(std::string_view value) {
    auto parsed = number_with_unit(value);
    if (!parsed || !parsed->unit.empty()) return std::nullopt;
    return parsed->number;
}

// "12.5%" -> 12.5 (old amdgpu prints the fraction unpadded, so "5.5%" may mean 5.05%:
// the error is below one percent and is taken as printed).
std::optional<double> parse_percent(std::string_view value) {
    if (!value.ends_with('%')) return std::nullopt;
    value.remove_suffix(1);
    double percent = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), percent);
    if (error != std::errc{} || end != value.data() + value.size() || percent < 0) {
        return std::nullopt;
    }
    return percent;
}

template <class Named>
Named& named(std::vector<Named>& items, std::string_view name) {
    auto it = std::find_if(items.begin(), items.end(),
                           [&](const Named& item) { return item.name == name; });
    if (it != items.end()) return *it;
    items.push_back(Named{.name = std::string(name)});
    return items.back();
}

bool take_prefix(std::string_view& key, std::string_view prefix) {
    if (!key.starts_with(prefix) || key.size() == prefix.size()) return false;
    key.remove_prefix(prefix.size());
    return true;
}

// The standard drm-* keys. Longer prefixes first: "drm-engine-capacity-" before
// "drm-engine-", "drm-total-cycles-" before "drm-total-".
void apply_standard_key(DrmFdinfo& info, std::string_view key, std::string_view value) {
    if (key == "drm-driver") {
        info.driver = std::string(value);
    } else if (key == "drm-pdev") {
        info.pdev = normalize_pci_bus_id(value);
    } else if (key == "drm-client-id") {
        info.client_id = parse_count(value);
    } else if (take_prefix(key, "drm-engine-capacity-")) {
        // Zero is not allowed by the spec; a driver printing it gets the default.
        if (auto capacity = parse_count(value); capacity && *capacity > 0) {
            named(info.engines, key).capacity = *capacity;
        }
    } else if (take_prefix(key, "drm-engine-")) {
        named(info.engines, key).busy_ns = parse_ns(value);
    } else if (take_prefix(key, "drm-total-cycles-")) {
        named(info.engines, key).total_cycles = parse_count(value);
    } else if (take_prefix(key, "drm-cycles-")) {
        named(info.engines, key).cycles = parse_count(value);
    } else if (take_prefix(key, "drm-total-")) {
        named(info.regions, key).total_bytes = parse_size(value);
    } else if (take_prefix(key, "drm-shared-")) {
        named(info.regions, key).shared_bytes = parse_size(value);
    } else if (take_prefix(key, "drm-resident-")) {
        named(info.regions, key).resident_bytes = parse_size(value);
    } else if (take_prefix(key, "drm-active-")) {
        named(info.regions, key).active_bytes = parse_size(value);
    } else if (take_prefix(key, "drm-purgeable-")) {
        named(info.regions, key).purgeable_bytes = parse_size(value);
    } else if (take_prefix(key, "drm-memory-")) {
        named(info.regions, key).legacy_bytes = parse_size(value);
    }
    // drm-maxfreq-*, drm-curfreq-* and driver-specific keys carry nothing used here.
}

// A ring name as old amdgpu printed it: lower-case letters or '_', then the ring index.
bool is_ring_name(std::string_view key) {
    const auto digits = key.find_first_of("0123456789");
    if (digits == 0 || digits == std::string_view::npos) return false;
    for (char c : key.substr(0, digits)) {
        if (!((c >= 'a' && c <= 'z') || c == '_')) return false;
    }
    for (char c : key.substr(digits)) {
        if (!text::is_digit(c)) return false;
    }
    return true;
}

void apply_legacy_amdgpu_key(DrmFdinfo& info, std::string_view key, std::string_view value) {
    if (key == "pdev") {
        info.pdev = normalize_pci_bus_id(value);
    } else if (key == "pasid") {
        // One address space per open file: what drm-client-id later became.
        info.client_id = parse_count(value);
    } else if (key.ends_with(" mem")) {
        key.remove_suffix(sizeof " mem" - 1);  // "vram", "gtt", "cpu"
        named(info.regions, key).legacy_bytes = parse_size(value);
    } else if (is_ring_name(key)) {
        if (auto percent = parse_percent(value)) named(info.engines, key).busy_percent = percent;
    }
}

bool is_device_local(std::string_view region) {
    return region.starts_with("vram") || region.starts_with("local") ||
           region.starts_with("stolen-local");
}

std::optional<std::uint64_t> region_bytes(const DrmMemoryRegion& region) {
    if (region.resident_bytes) return region.resident_bytes;
    if (region.legacy_bytes) return region.legacy_bytes;
    return region.total_bytes;
}

}  // namespace

std::optional<DrmFdinfo> parse_drm_fdinfo(std::string_view text) {
    const std::vector<KeyValue> pairs = key_values(text);
    bool standard = false;
    bool has_pdev = false;
    bool has_pasid = false;
    for (const KeyValue& kv : pairs) {
        if (kv.key.starts_with("drm-")) standard = true;
        if (kv.key == "pdev") has_pdev = true;
        if (kv.key == "pasid") has_pasid = true;
    }
    DrmFdinfo info;
    if (standard) {
        for (const KeyValue& kv : pairs) apply_standard_key(info, kv.key, kv.value);
        return info;
    }
    if (has_pdev && has_pasid) {
        info.driver = "amdgpu";
        info.legacy_amdgpu = true;
        for (const KeyValue& kv : pairs) apply_legacy_amdgpu_key(info, kv.key, kv.value);
        return info;
    }
    return std::nullopt;
}

std::optional<std::uint64_t> client_gpu_memory_bytes(const DrmFdinfo& client) {
    const bool discrete = std::any_of(client.regions.begin(), client.regions.end(),
                                      [](const auto& r) { return is_device_local(r.name); });
    std::optional<std::uint64_t> sum;
    for (const DrmMemoryRegion& region : client.regions) {
        if (discrete && !is_device_local(region.name)) continue;
        if (auto bytes = region_bytes(region)) sum = sum.value_or(0) + *bytes;
    }
    return sum;
}

}  // namespace gpukill
