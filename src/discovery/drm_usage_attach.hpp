// Puts the DRM clients' per-process usage (drm_client_usage.hpp) into the DRM GPUs'
// process lists before merge, so a process using an AMD, Intel or other DRM GPU is listed
// by the driver with its memory and utilisation, as NVML's list does for NVIDIA. Pure.
//
// A usage attaches to the reading of backend "drm" whose PCI bus id is its drm-pdev
// (NVIDIA's own DRM nodes are left to NVML). A PID the backend already lists for that GPU
// (ROCm compute, from kfd) keeps its kind and gets the larger of the two memory figures:
// kfd and fdinfo count the same VRAM from two sides, so they are never summed. Any other
// PID is added as a graphics client.
#pragma once

#include <vector>

#include "discovery/drm_client_usage.hpp"
#include "model/gpu.hpp"

namespace gpukill {

void attach_drm_usage(std::vector<GpuReading>& readings, const std::vector<DrmProcessUsage>& usage);

}  // namespace gpukill
