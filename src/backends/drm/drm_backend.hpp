// AMD, Intel and other GPUs through the kernel's DRM subsystem: sysfs only, no vendor
// library or tool. Enumeration (drm_card_scan), device metrics (drm_metrics) and, for
// amdgpu, the ROCm compute processes (kfd_processes). NVIDIA GPUs on the proprietary
// driver are the NVML backend's. One object lives as long as a command (watch mode reads
// it repeatedly), which lets it turn energy counters into power between reads.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>

#include "backends/backend.hpp"
#include "backends/drm/sysfs_values.hpp"
#include "model/host_roots.hpp"

namespace gpukill::drm {

struct DrmBackendOptions {
    HostRoots roots;
    // A GPU that reports energy but no power (i915, xe) needs two readings. On the first
    // read_gpus() there is no earlier one, so the backend waits this long and reads the
    // counters again: a one-time cost per command, shared by all such GPUs. Later reads
    // use the previous call's reading.
    std::chrono::milliseconds first_energy_interval{100};
    // Injectable so tests control time instead of sleeping.
    std::function<std::chrono::steady_clock::time_point()> now = [] {
        return std::chrono::steady_clock::now();
    };
    std::function<void(std::chrono::milliseconds)> sleep;  // empty: std::this_thread::sleep_for
};

class DrmBackend final : public Backend {
  public:
    explicit DrmBackend(const HostRoots& roots);
    explicit DrmBackend(DrmBackendOptions options);

    const BackendStatus& status() const override { return status_; }
    // DRM spans vendors: each GpuReading carries its own (AMD, Intel, ...).
    Vendor vendor() const override { return Vendor::other; }
    std::vector<GpuReading> read_gpus() override;

  private:
    DrmBackendOptions options_;
    BackendStatus status_;
    // The last energy reading of each energy-only GPU, by PCI bus id.
    std::map<std::string, EnergySample> last_energy_;
};

}  // namespace gpukill::drm
