#include "discovery/gpu_selector.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "model/pci_bus_id.hpp"

namespace gpukill {
namespace {

bool iequals_prefix(std::string_view text, std::string_view prefix) {
    if (prefix.size() > text.size()) return false;
    return std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) ==
               std::tolower(static_cast<unsigned char>(b));
    });
}

std::string describe_indices(const std::vector<Gpu>& gpus) {
    if (gpus.empty()) return "this host has no GPUs";
    return fmt::format("this host has GPUs 0-{}", gpus.size() - 1);
}

}  // namespace

Result<unsigned> resolve_gpu_selector(std::string_view selector, const std::vector<Gpu>& gpus) {
    if (selector.empty()) return fail("--gpu needs a GPU index, UUID or PCI bus id");
    unsigned index = 0;
    auto [end, ec] = std::from_chars(selector.data(), selector.data() + selector.size(), index);
    if (ec == std::errc() && end == selector.data() + selector.size()) {
        if (index < gpus.size()) return index;
        return fail(fmt::format("no GPU {} ({})", selector, describe_indices(gpus)));
    }
    if (auto bus_id = normalize_pci_bus_id(selector)) {
        for (const Gpu& gpu : gpus) {
            if (gpu.reading.pci_bus_id == bus_id) return gpu.index;
        }
        return fail(fmt::format("no GPU at PCI bus id {}", *bus_id));
    }
    std::vector<unsigned> matches;
    for (const Gpu& gpu : gpus) {
        if (gpu.reading.uuid && iequals_prefix(*gpu.reading.uuid, selector)) {
            matches.push_back(gpu.index);
        }
    }
    if (matches.size() == 1) return matches.front();
    if (matches.empty()) {
        return fail(fmt::format("no GPU matches '{}' (expected an index, UUID or PCI bus id; {})",
                                selector, describe_indices(gpus)));
    }
    return fail(
        fmt::format("'{}' matches {} GPUs; give more of the UUID", selector, matches.size()));
}

Snapshot restrict_to_gpus(const Snapshot& snapshot, const std::vector<unsigned>& indices) {
    auto selected = [&](unsigned index) {
        return std::find(indices.begin(), indices.end(), index) != indices.end();
    };
    Snapshot result = snapshot;
    std::erase_if(result.gpus, [&](const Gpu& gpu) { return !selected(gpu.index); });
    result.processes.clear();
    for (const SnapshotProcess& process : snapshot.processes) {
        SnapshotProcess copy = process;
        std::erase_if(copy.gpus,
                      [&](const ProcessGpuUse& use) { return !selected(use.gpu_index); });
        if (!copy.gpus.empty()) result.processes.push_back(std::move(copy));
    }
    return result;
}

}  // namespace gpukill

namespace gpukill {

Result<std::optional<Vendor>> parse_vendor_filter(std::string_view text) {
    if (text == "all") return std::optional<Vendor>{};
    if (text == "nvidia") return std::optional<Vendor>{Vendor::nvidia};
    if (text == "amd") return std::optional<Vendor>{Vendor::amd};
    if (text == "intel") return std::optional<Vendor>{Vendor::intel};
    return fail(fmt::format("unknown vendor '{}' (expected nvidia, amd, intel or all)", text));
}

Snapshot restrict_to_vendor(const Snapshot& snapshot, Vendor vendor) {
    std::vector<unsigned> indices;
    for (const Gpu& gpu : snapshot.gpus) {
        if (gpu.reading.vendor == vendor) indices.push_back(gpu.index);
    }
    Snapshot result = restrict_to_gpus(snapshot, indices);
    auto vendor_node = [&](const DeviceNode& node) {
        switch (node.kind) {
            case DeviceNodeKind::nvidia_gpu:
            case DeviceNodeKind::nvidia_ctl:
            case DeviceNodeKind::nvidia_uvm:
            case DeviceNodeKind::nvidia_caps:
                return vendor == Vendor::nvidia;
            case DeviceNodeKind::kfd:
                return vendor == Vendor::amd;
            default:
                return false;
        }
    };
    // Holders of a vendor's driver-wide nodes but no specific GPU still belong.
    for (const SnapshotProcess& process : snapshot.processes) {
        bool already = std::any_of(result.processes.begin(), result.processes.end(),
                                   [&](const auto& p) { return p.info.pid == process.info.pid; });
        if (!already && process.gpus.empty() &&
            std::any_of(process.device_nodes.begin(), process.device_nodes.end(), vendor_node)) {
            result.processes.push_back(process);
        }
    }
    std::sort(result.processes.begin(), result.processes.end(),
              [](const auto& a, const auto& b) { return a.info.pid < b.info.pid; });
    return result;
}

}  // namespace gpukill
