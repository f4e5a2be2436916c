#pragma once
// A workload's entry in kfd's sysfs, as the AMD compute driver makes one for each process
// that opens /dev/kfd: DIR/sys/devices/virtual/kfd/kfd/proc/<pid>/vram_<gpu_id>, one file
// per amdgpu GPU, the bytes of VRAM the process has there (0 where it has none).
//
// The kernel's entry vanishes with the process, even one ended by SIGKILL; gpusim has no
// daemon to remove it. So proc/<pid> is a symbolic link to /proc/<pid>/cwd, and the process
// makes the directory holding its files (DIR/gpusim/kfd/<pid>) its working directory: while
// it lives the link resolves to its files, once it is gone the link dangles and a reader
// finds no entry, as on a real host.

#include <sys/types.h>

#include <cstdint>

#include "state/config.hpp"
#include "state/error.hpp"
#include "state/root.hpp"

namespace gpusim {

// Publishes the calling process: `bytes` of VRAM on DRM GPU `drm_gpu` (an amdgpu GPU), 0 on
// every other amdgpu GPU. Changes the working directory; call it after every path it
// needs is absolute (Root's are).
Result<void> publish_kfd_process(const Root& root, const SimConfig& config, unsigned drm_gpu,
                                 std::uint64_t bytes);

}  // namespace gpusim
