// The AMD compute driver's (kfd) view of the GPUs: SYSFS/class/kfd/kfd/topology/nodes/N
// has one node per CPU socket and per GPU (per partition on MI300 in a partitioned mode).
// A GPU node's gpu_id is the id kfd uses everywhere else (proc/<pid>/vram_<gpu_id>);
// its `properties` file locates it on PCI. CPU nodes have gpu_id 0.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "model/host_roots.hpp"
#include "model/result.hpp"

namespace gpukill::drm {

// The normalised PCI bus id of a kfd node from its `properties` text: lines of
// "name value"; `location_id` is bus << 8 | device << 3 | function and `domain` the PCI
// domain (absent on kernels before 5.10: domain 0). Empty when location_id is missing. Pure.
std::optional<std::string> kfd_node_pci_bus_id(std::string_view properties);

// gpu_id -> PCI bus id for every GPU node. An empty map when the host has no kfd (no
// SYSFS/class/kfd); an error when the topology exists but cannot be read.
Result<std::map<std::uint32_t, std::string>> read_kfd_gpu_ids(const HostRoots& roots);

}  // namespace gpukill::drm
