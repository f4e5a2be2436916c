#include "backends/drm/drm_card_scan.hpp"

#include <limits.h>
#include <stdlib.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <memory>

#include "backends/drm/sysfs_attribute.hpp"
#include "backends/drm/sysfs_values.hpp"
#include "host/drm_pci.hpp"

namespace gpukill::drm {
namespace {

std::string basename_of(std::string_view path) {
    const auto slash = path.rfind('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// The directory of the PCI device `bus_id` on the resolved path of a DRM node's parent.
// It is the parent itself for PCI GPUs and an ancestor for virtual parents (virtio-gpu's
// "virtioN" sits below the PCI function that carries it).
std::optional<std::string> pci_directory(const std::string& device_link,
                                         const std::string& bus_id) {
    std::unique_ptr<char, decltype(&::free)> resolved(::realpath(device_link.c_str(), nullptr),
                                                      &::free);
    if (!resolved) return std::nullopt;
    const std::string path = resolved.get();
    const std::string component = "/" + bus_id;
    for (auto at = path.rfind(component); at != std::string::npos;
         at = at == 0 ? std::string::npos : path.rfind(component, at - 1)) {
        const auto end = at + component.size();
        if (end == path.size() || path[end] == '/') return path.substr(0, end);
    }
    return std::nullopt;
}

// Reads one hex attribute (vendor, device, class) of a PCI device into `out`.
void read_hex(const std::string& dir, const char* name, std::optional<std::uint32_t>& out,
              const std::string& card, std::vector<std::string>& problems) {
    auto text = read_attribute(dir + "/" + name);
    if (!text) {
        problems.push_back(fmt::format("{}: {}", card, text.error().what));
    } else if (*text) {
        out = parse_hex_attribute(**text);
    }
}

CardFacts read_card_facts(const HostRoots& roots, const std::string& card,
                          const std::map<std::string, std::string>& render_by_pci,
                          std::vector<std::string>& problems) {
    const std::string device_link = roots.sysfs + "/class/drm/" + card + "/device";
    CardFacts facts;
    facts.card = card;
    facts.pci_bus_id = resolve_drm_pci_bus_id(roots, card);
    if (auto driver = read_optional_link(device_link + "/driver"); !driver) {
        problems.push_back(fmt::format("{}: {}", card, driver.error().what));
    } else if (*driver) {
        facts.driver = basename_of(**driver);
    }
    if (!facts.pci_bus_id) return facts;
    if (auto found = render_by_pci.find(*facts.pci_bus_id); found != render_by_pci.end()) {
        facts.render_node = found->second;
    }
    auto pci_dir = pci_directory(device_link, *facts.pci_bus_id);
    if (!pci_dir) {
        problems.push_back(fmt::format("{}: cannot resolve {}", card, device_link));
        return facts;
    }
    read_hex(*pci_dir, "vendor", facts.vendor_id, card, problems);
    read_hex(*pci_dir, "device", facts.device_id, card, problems);
    read_hex(*pci_dir, "class", facts.pci_class, card, problems);
    return facts;
}

}  // namespace

std::optional<std::string> reason_not_a_gpu(const CardFacts& facts) {
    if (!facts.pci_bus_id) return "not a PCI device";
    // nvidia-drm exposes cards for the NVIDIA driver's GPUs; NVML reports those fully.
    if (facts.driver == "nvidia") return "NVIDIA driver: listed through NVML";
    if (!facts.pci_class || !facts.vendor_id || !facts.device_id) {
        return "PCI vendor, device or class unreadable";
    }
    if (!is_gpu_pci_class(*facts.pci_class)) {
        return fmt::format("PCI class 0x{:06x} is not a display controller or accelerator",
                           *facts.pci_class);
    }
    // Display-only drivers (a server BMC's ASPEED or Matrox VGA, simpledrm) create no
    // render node: they drive a screen but run no work, so they hold nothing to reclaim.
    if (!facts.render_node) return "display only (no render node)";
    return std::nullopt;
}

Result<CardScan> scan_drm_cards(const HostRoots& roots) {
    const std::string class_dir = roots.sysfs + "/class/drm";
    auto names = list_directory(class_dir);
    if (!names) return std::unexpected(names.error());
    if (!*names) return fail("no " + class_dir, ENOENT);

    // The render node of each PCI device: the lowest renderDN whose parent resolves to it.
    std::map<std::string, std::string> render_by_pci;
    std::map<std::string, unsigned> render_minor_by_pci;
    for (const std::string& name : **names) {
        auto minor = drm_node_minor("renderD", name);
        if (!minor) continue;
        auto bus_id = resolve_drm_pci_bus_id(roots, name);
        if (!bus_id) continue;
        auto known = render_minor_by_pci.find(*bus_id);
        if (known == render_minor_by_pci.end() || *minor < known->second) {
            render_minor_by_pci[*bus_id] = *minor;
            render_by_pci[*bus_id] = name;
        }
    }

    CardScan scan;
    for (const std::string& name : **names) {
        auto minor = drm_node_minor("card", name);
        if (!minor) continue;  // connectors (card0-DP-1), renderD*, version
        CardFacts facts = read_card_facts(roots, name, render_by_pci, scan.problems);
        if (auto reason = reason_not_a_gpu(facts)) {
            scan.skipped.push_back(SkippedCard{name, *reason});
            continue;
        }
        DrmCard card;
        card.card = name;
        card.card_minor = *minor;
        card.render_node = facts.render_node;
        card.pci_bus_id = *facts.pci_bus_id;
        card.vendor_id = *facts.vendor_id;
        card.device_id = *facts.device_id;
        card.vendor = vendor_from_pci_id(card.vendor_id);
        card.driver = facts.driver;
        card.device_dir = class_dir + "/" + name + "/device";
        scan.gpus.push_back(std::move(card));
    }
    std::sort(scan.gpus.begin(), scan.gpus.end(),
              [](const DrmCard& a, const DrmCard& b) { return a.card_minor < b.card_minor; });
    return scan;
}

std::string display_name(const DrmCard& card, const std::optional<std::string>& product_name) {
    if (product_name) return *product_name;
    switch (card.vendor) {
        case Vendor::amd:
            return fmt::format("AMD GPU 0x{:04x}", card.device_id);
        case Vendor::intel:
            return fmt::format("Intel GPU 0x{:04x}", card.device_id);
        case Vendor::nvidia:
            return fmt::format("NVIDIA GPU 0x{:04x}", card.device_id);
        case Vendor::other:
            break;
    }
    if (card.driver.empty())
        return fmt::format("GPU 0x{:04x}:0x{:04x}", card.vendor_id, card.device_id);
    return fmt::format("{} GPU 0x{:04x}", card.driver, card.device_id);
}

}  // namespace gpukill::drm
