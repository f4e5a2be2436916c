#pragma once
// PCI addresses in the forms NVML reports them.

#include <optional>
#include <string>
#include <string_view>

namespace gpusim {

struct PciAddress {
    unsigned domain = 0;
    unsigned bus = 0;
    unsigned device = 0;
    unsigned function = 0;
};

// Accepts "DDDDDDDD:BB:DD.F" and the short "DDDD:BB:DD.F" / "BB:DD.F", any case.
std::optional<PciAddress> parse_pci_address(std::string_view text);

// "00000000:18:00.0": upper case, 8-digit domain, as nvmlPciInfo_t.busId.
std::string format_bus_id(const PciAddress& address);

// "0000:18:00.0": 4-digit domain, as nvmlPciInfo_t.busIdLegacy.
std::string format_legacy_bus_id(const PciAddress& address);

}  // namespace gpusim
