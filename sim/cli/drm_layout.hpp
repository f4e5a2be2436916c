#pragma once
// The DRM GPUs of a simulated host, laid out as the kernel lays them out, so gpukill's DRM
// backend and fd sweep read DIR/sys and DIR/dev exactly as they read / on a real host:
//
//   DIR/sys/devices/pciDDDD:00/<bdf>/             the PCI function: vendor, device, class,
//       driver -> ../../../bus/pci/drivers/<driver>, power/runtime_status,
//       drm/cardN/ and drm/renderD(128+N)/ (each with device -> ../../../<bdf>),
//       amdgpu: gpu_busy_percent, mem_info_{vram,gtt}_{total,used}, product_name, unique_id,
//       hwmon/hwmonK/{name, temp1_input, temp1_label, power1_average | energy1_input,
//                     power1_cap | power1_max}
//   DIR/sys/class/drm/{cardN,renderD(128+N)} -> ../../devices/pciDDDD:00/<bdf>/drm/...
//   DIR/sys/class/hwmon/hwmonK -> ../../devices/pciDDDD:00/<bdf>/hwmon/hwmonK
//   DIR/sys/class/kfd/kfd -> ../../devices/virtual/kfd/kfd   (AMD compute: topology/nodes/K
//       with gpu_id, name, properties; proc/ empty until a `run --kfd-vram` workload)
//   DIR/dev/dri/cardN, DIR/dev/dri/renderD(128+N), DIR/dev/kfd   regular files, mode 0666
//
// N is the GPU's position in the scenario's drm_gpus list. The files are static text
// written once: the kernel keeps them live, gpusim (no daemon) cannot.

#include <filesystem>
#include <map>

#include "state/config.hpp"
#include "state/error.hpp"
#include "state/root.hpp"

namespace gpusim {

std::filesystem::path sys_dir(const Root& root);  // what GPUKILL_SYSFS points at
std::filesystem::path drm_card_node(const Root& root, unsigned drm_index);
std::filesystem::path drm_render_node(const Root& root, unsigned drm_index);
std::filesystem::path kfd_node(const Root& root);

// kfd's gpu_id of each amdgpu GPU, by its index in drm_gpus (what topology/nodes/K/gpu_id
// and proc/<pid>/vram_<gpu_id> say).
std::map<unsigned, unsigned> kfd_gpu_ids(const SimConfig& config);
// DIR/sys/devices/virtual/kfd/kfd/proc: one entry per process that opened /dev/kfd.
std::filesystem::path kfd_proc_dir(const Root& root);

// Creates DIR/sys (always: with no DRM GPU it holds an empty class/drm, so a simulated host
// never shows the real host's GPUs) and the DRM GPUs' files and device nodes.
Result<void> create_drm_host(const Root& root, const SimConfig& config);

// Removes DIR/sys, DIR/dev/dri, DIR/dev/kfd and the kfd entries' files (DIR/gpusim/kfd).
Result<void> remove_drm_host(const Root& root);

}  // namespace gpusim
