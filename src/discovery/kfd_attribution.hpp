// Which AMD GPUs a holder of /dev/kfd is tied to. /dev/kfd is the AMD compute driver's one
// node for every AMD GPU: holding it says only "some AMD GPU". What narrows it, in order:
// the render or card nodes of AMD GPUs the process holds, and kfd's own per-GPU entries
// (VRAM or a queue on that GPU: the DRM backend's driver list). Only when neither names
// an AMD GPU (none held, or kfd's sysfs unreadable) is the process tied to every AMD GPU,
// each tie marked GpuAttribution::any_amd_gpu. Pure.
#pragma once

#include <vector>

#include "model/snapshot.hpp"

namespace gpukill {

// The GPUs /dev/kfd alone ties `process` to, given the ties already made from its driver
// lists and per-GPU nodes (process.gpus) and the nodes it holds (process.device_nodes):
// every AMD GPU of `gpus` when it holds /dev/kfd and no tie names an AMD GPU; otherwise
// none (a tie to an Intel or NVIDIA GPU narrows nothing about its AMD use).
std::vector<unsigned> kfd_only_gpus(const SnapshotProcess& process, const std::vector<Gpu>& gpus);

}  // namespace gpukill
