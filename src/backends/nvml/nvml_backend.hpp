// NVIDIA GPUs through NVML, loaded at run time. Init happens once at open; every
// read_gpus() call asks the driver afresh.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "backends/backend.hpp"
#include "backends/nvml/nvml_library.hpp"

namespace gpukill::nvml {

class NvmlBackend final : public Backend {
  public:
    // library_path empty: try the default sonames; a missing driver is then a quiet
    // "not loaded". A configured path that fails is reported as explicitly requested.
    explicit NvmlBackend(const std::optional<std::string>& library_path);
    ~NvmlBackend() override;

    const BackendStatus& status() const override { return status_; }
    Vendor vendor() const override { return Vendor::nvidia; }
    std::vector<GpuReading> read_gpus() override;
    // nvmlShutdown, `reset`, nvmlInit: a failed re-initialisation leaves the backend
    // not loaded, with the reason in status().
    void without_driver_session(const std::function<void()>& reset) override;

  private:
    GpuReading read_one(unsigned index);
    std::unique_ptr<NvmlLibrary> library_;
    bool initialised_ = false;
    BackendStatus status_;
};

}  // namespace gpukill::nvml
