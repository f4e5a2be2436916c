#pragma once
// The `drm_gpus:` section of a scenario (docs/SIMULATOR.md, "DRM GPUs"). Problems throw
// YAML::Exception with the offending node's mark, which parse_scenario turns into its
// one-line "scenario FILE:LINE:COL: ..." error like any other.

#include <vector>

#include <yaml-cpp/yaml.h>

#include "state/config.hpp"

namespace gpusim {

// `nvidia_gpus` are the scenario's NVIDIA GPUs: no DRM GPU may share a bus id with one.
std::vector<DrmGpuSpec> parse_drm_gpus(const YAML::Node& list,
                                       const std::vector<GpuSpec>& nvidia_gpus);

}  // namespace gpusim
