#include "backends/drm/kfd_topology.hpp"

#include <fmt/format.h>

#include "backends/drm/sysfs_attribute.hpp"
#include "backends/drm/sysfs_values.hpp"
#include "model/parse_util.hpp"

namespace gpukill::drm {

std::optional<std::string> kfd_node_pci_bus_id(std::string_view properties) {
    std::optional<std::uint64_t> location_id;
    std::uint64_t domain = 0;
    bool malformed = false;
    text::for_each_line(properties, [&](std::string_view line) {
        const auto space = line.find(' ');
        if (space == std::string_view::npos) return;
        const std::string_view name = line.substr(0, space);
        if (name != "location_id" && name != "domain") return;
        auto value = text::parse_int<std::uint64_t>(line.substr(space + 1));
        if (!value) {
            malformed = true;
        } else if (name == "location_id") {
            location_id = value;
        } else {
            domain = *value;
        }
    });
    if (malformed || !location_id || *location_id > 0xffff || domain > 0xffffffff) {
        return std::nullopt;
    }
    const auto bus = (*location_id >> 8) & 0xff;
    const auto device = (*location_id >> 3) & 0x1f;
    const auto function = *location_id & 0x7;
    return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, bus, device, function);
}

Result<std::map<std::uint32_t, std::string>> read_kfd_gpu_ids(const HostRoots& roots) {
    const std::string nodes_dir = roots.sysfs + "/class/kfd/kfd/topology/nodes";
    std::map<std::uint32_t, std::string> gpus;
    auto nodes = list_directory(nodes_dir);
    if (!nodes) return std::unexpected(nodes.error());
    if (!*nodes) return gpus;
    for (const std::string& node : **nodes) {
        const std::string dir = nodes_dir + "/" + node;
        auto gpu_id_text = read_attribute(dir + "/gpu_id");
        if (!gpu_id_text) return std::unexpected(gpu_id_text.error());
        if (!*gpu_id_text) continue;
        auto gpu_id = parse_unsigned_attribute(**gpu_id_text);
        if (!gpu_id || *gpu_id == 0 || *gpu_id > 0xffffffff) continue;  // a CPU node
        auto properties = read_attribute(dir + "/properties");
        if (!properties) return std::unexpected(properties.error());
        if (!*properties) continue;
        if (auto bus_id = kfd_node_pci_bus_id(**properties)) {
            gpus.emplace(static_cast<std::uint32_t>(*gpu_id), *bus_id);
        }
    }
    return gpus;
}

}  // namespace gpukill::drm
