#pragma once
// A real process that uses a simulated GPU the way a CUDA program does: it opens and maps the
// control, UVM and GPU device nodes, allocates memory, forks DataLoader-style workers that
// inherit the descriptors and mappings, and then sleeps until a signal ends it. On a DRM GPU it
// opens the render node (and /dev/kfd for AMD) the way a ROCm or Level Zero program does.

#include <cstdint>
#include <optional>

#include "cli/ready_channel.hpp"
#include "state/root.hpp"

namespace gpusim {

struct WorkloadSpec {
    Root root;
    unsigned gpu = 0;
    // A DRM GPU instead (its index in the scenario's drm_gpus): the workload holds its render
    // node (and /dev/kfd on amdgpu, as a ROCm program does) but allocates nothing: a DRM
    // driver accounts memory per open file in fdinfo, which only the kernel can write.
    std::optional<unsigned> drm_gpu;
    // amdgpu only: hold /dev/kfd and not the render node, so nothing but kfd's own sysfs
    // (if anything) says which AMD GPU the process uses.
    bool kfd_only = false;
    // amdgpu only: this many bytes of VRAM on drm_gpu in kfd's sysfs (kfd_process.hpp).
    // Without it the process has no kfd entry, as when kfd's sysfs cannot be read.
    std::optional<std::uint64_t> kfd_vram_bytes;
    std::uint64_t bytes = 0;
    unsigned util_percent = 0;
    unsigned workers = 0;
    // Each device node's descriptor is closed once the node is mapped: the process (and
    // its workers, forked after) hold the GPU by the mappings alone.
    bool mapping_only = false;
    bool ignore_term = false;       // SIGTERM is ignored (SIG_IGN), in workers too
    double term_delay_seconds = 0;  // SIGTERM/SIGINT end the process this much later
};

// Runs until SIGTERM/SIGINT (or forever with ignore_term, until SIGKILL). Returns the exit
// code of the parent; workers never return from it.
int run_workload(const WorkloadSpec& spec, ReadyChannel& channel);

}  // namespace gpusim
