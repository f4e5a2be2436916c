#include "state/pci.hpp"

#include <array>
#include <charconv>
#include <cstdio>

namespace gpusim {

namespace {

// Parses exactly `text` as hex no larger than `max`.
std::optional<unsigned> parse_hex(std::string_view text, unsigned max) {
    if (text.empty() || text.size() > 8) return std::nullopt;
    unsigned value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
    if (error != std::errc{} || end != text.data() + text.size() || value > max) {
        return std::nullopt;
    }
    return value;
}

}  // namespace

std::optional<PciAddress> parse_pci_address(std::string_view text) {
    PciAddress address;
    const auto last_colon = text.rfind(':');
    const auto dot = text.rfind('.');
    if (last_colon == std::string_view::npos || dot == std::string_view::npos || dot < last_colon) {
        return std::nullopt;
    }
    std::string_view head = text.substr(0, last_colon);  // [domain:]bus
    const auto first_colon = head.rfind(':');
    std::optional<unsigned> domain = 0;
    if (first_colon != std::string_view::npos) {
        domain = parse_hex(head.substr(0, first_colon), 0xFFFFFFFFU);
        head = head.substr(first_colon + 1);
    }
    const auto bus = parse_hex(head, 0xFF);
    const auto device = parse_hex(text.substr(last_colon + 1, dot - last_colon - 1), 0x1F);
    const auto function = parse_hex(text.substr(dot + 1), 0x7);
    if (!domain || !bus || !device || !function) return std::nullopt;
    address.domain = *domain;
    address.bus = *bus;
    address.device = *device;
    address.function = *function;
    return address;
}

std::string format_bus_id(const PciAddress& address) {
    std::array<char, 32> buffer{};
    std::snprintf(buffer.data(), buffer.size(), "%08X:%02X:%02X.%X", address.domain, address.bus,
                  address.device, address.function);
    return buffer.data();
}

std::string format_legacy_bus_id(const PciAddress& address) {
    std::array<char, 32> buffer{};
    std::snprintf(buffer.data(), buffer.size(), "%04X:%02X:%02X.%X", address.domain & 0xFFFFU,
                  address.bus, address.device, address.function);
    return buffer.data();
}

}  // namespace gpusim
