// Which PCI device a DRM node (/dev/dri/cardN, renderDN) belongs to, from sysfs:
// SYSFS/class/drm/<name>/device is a symlink into /sys/devices whose PCI component is
// the GPU's address, e.g. "../../../0000:03:00.0" or
// "../../../devices/pci0000:00/0000:00:01.0/0000:03:00.0".
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/host_roots.hpp"

namespace gpukill {

// The normalised PCI bus id ("0000:03:00.0") of DRM node `node_name` ("card0",
// "renderD128"); empty when sysfs has no such node or its parent is not a PCI device
// (a platform GPU on an SoC). The innermost PCI address on the path wins, so a device
// behind bridges resolves to itself, not to a bridge.
std::optional<std::string> resolve_drm_pci_bus_id(const HostRoots& roots,
                                                  std::string_view node_name);

// The last component of a path that is a PCI address, normalised. Pure.
std::optional<std::string> innermost_pci_component(std::string_view path);

}  // namespace gpukill
