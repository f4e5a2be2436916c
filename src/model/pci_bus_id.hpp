// PCI bus ids in one spelling, so a GPU seen by NVML and by sysfs compares equal.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpukill {

// Normalises a PCI address "DOMAIN:BUS:DEVICE.FUNCTION" to the spelling Linux sysfs uses:
// lower case, domain at least 4 hex digits ("%04x:%02x:%02x.%x").
//   "00000000:3B:00.0" (NVML, 8-digit domain) -> "0000:3b:00.0"
//   "0000:3b:00.0"     (sysfs)                -> "0000:3b:00.0"
//   "3b:00.0"          (lspci, no domain)     -> "0000:3b:00.0"
//   "10000:e1:00.0"    (Intel VMD domain)     -> "10000:e1:00.0"
// Surrounding whitespace (a sysfs file's newline) is ignored. Anything else malformed
// (wrong digit counts, device > 0x1f, function > 7, stray characters) gives empty.
std::optional<std::string> normalize_pci_bus_id(std::string_view text);

}  // namespace gpukill
