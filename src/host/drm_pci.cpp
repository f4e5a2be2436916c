#include "host/drm_pci.hpp"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>

#include <memory>

#include "model/pci_bus_id.hpp"
#include "sys/fd_io.hpp"

namespace gpukill {

std::optional<std::string> innermost_pci_component(std::string_view path) {
    while (!path.empty()) {
        const auto slash = path.rfind('/');
        const auto component = slash == std::string_view::npos ? path : path.substr(slash + 1);
        // Only "DDDD:BB:DD.F" spellings: sysfs never shortens them, and bus-only names such
        // as "pci0000:00" must not be taken for devices.
        if (component.find(':') != component.rfind(':')) {
            if (auto id = normalize_pci_bus_id(component)) return id;
        }
        if (slash == std::string_view::npos) break;
        path = path.substr(0, slash);
    }
    return std::nullopt;
}

std::optional<std::string> resolve_drm_pci_bus_id(const HostRoots& roots,
                                                  std::string_view node_name) {
    if (node_name.empty() || node_name.find('/') != std::string_view::npos) return std::nullopt;
    std::string link = roots.sysfs + "/class/drm/";
    link += node_name;
    link += "/device";

    // The link text names the PCI device directly on PCI systems ...
    if (auto target = read_link_at(AT_FDCWD, link.c_str())) {
        if (auto id = innermost_pci_component(*target)) return id;
    } else {
        return std::nullopt;
    }
    // ... but a virtual parent (virtio-gpu: "../../../virtio0") needs the full path,
    // whose PCI ancestor is the device that carries the GPU.
    std::unique_ptr<char, decltype(&::free)> resolved(::realpath(link.c_str(), nullptr), &::free);
    if (!resolved) return std::nullopt;
    return innermost_pci_component(resolved.get());
}

}  // namespace gpukill
