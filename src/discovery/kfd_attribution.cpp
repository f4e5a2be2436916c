#include "discovery/kfd_attribution.hpp"

#include <algorithm>

namespace gpukill {

std::vector<unsigned> kfd_only_gpus(const SnapshotProcess& process, const std::vector<Gpu>& gpus) {
    const bool holds_kfd =
        std::any_of(process.device_nodes.begin(), process.device_nodes.end(),
                    [](const DeviceNode& node) { return node.kind == DeviceNodeKind::kfd; });
    if (!holds_kfd) return {};
    std::vector<unsigned> amd;
    for (const Gpu& gpu : gpus) {
        if (gpu.reading.vendor == Vendor::amd) amd.push_back(gpu.index);
    }
    const bool narrowed =
        std::any_of(process.gpus.begin(), process.gpus.end(), [&](const ProcessGpuUse& use) {
            return use.known() && std::find(amd.begin(), amd.end(), use.gpu_index) != amd.end();
        });
    return narrowed ? std::vector<unsigned>{} : amd;
}

}  // namespace gpukill
