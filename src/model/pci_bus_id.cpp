#include "model/pci_bus_id.hpp"

#include <charconv>
#include <cstdint>
#include <cstdio>

namespace gpukill {
namespace {

// Exactly `min..max` hex digits forming the whole of `s`.
std::optional<std::uint32_t> hex_field(std::string_view s, std::size_t min_digits,
                                       std::size_t max_digits) {
    if (s.size() < min_digits || s.size() > max_digits) return std::nullopt;
    for (char c : s) {
        const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
        if (!hex) return std::nullopt;
    }
    std::uint32_t value = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value, 16);
    if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
    return value;
}

std::string_view trim(std::string_view s) {
    constexpr std::string_view space = " \t\n\r\v\f";
    const auto first = s.find_first_not_of(space);
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(space) - first + 1);
}

}  // namespace

std::optional<std::string> normalize_pci_bus_id(std::string_view text) {
    text = trim(text);

    // Split from the right: "[DOMAIN:]BUS:DEVICE.FUNCTION".
    const auto dot = text.rfind('.');
    if (dot == std::string_view::npos) return std::nullopt;
    const auto function_text = text.substr(dot + 1);
    const auto head = text.substr(0, dot);

    const auto last_colon = head.rfind(':');
    if (last_colon == std::string_view::npos) return std::nullopt;
    const auto device_text = head.substr(last_colon + 1);
    const auto domain_bus = head.substr(0, last_colon);

    std::string_view domain_text = "0";
    std::string_view bus_text = domain_bus;
    if (const auto colon = domain_bus.rfind(':'); colon != std::string_view::npos) {
        domain_text = domain_bus.substr(0, colon);
        bus_text = domain_bus.substr(colon + 1);
    }

    // Domain: 16 bits in classic PCI, 32 in NVML's field and with VMD; device is 5 bits
    // and function 3, so "00:20.0" or "00:00.8" cannot be real addresses.
    const auto domain = hex_field(domain_text, 1, 8);
    const auto bus = hex_field(bus_text, 2, 2);
    const auto device = hex_field(device_text, 2, 2);
    const auto function = hex_field(function_text, 1, 1);
    if (!domain || !bus || !device || !function || *device > 0x1f || *function > 7) {
        return std::nullopt;
    }

    char buffer[32];
    const int n = std::snprintf(buffer, sizeof buffer, "%04x:%02x:%02x.%x", *domain, *bus, *device,
                                *function);
    if (n <= 0 || static_cast<std::size_t>(n) >= sizeof buffer) return std::nullopt;
    return std::string(buffer, static_cast<std::size_t>(n));
}

}  // namespace gpukill
