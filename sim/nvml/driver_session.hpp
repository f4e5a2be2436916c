#pragma once
// The library's process-wide state: the reference-counted nvmlInit session, the loaded host
// configuration and the device handles. One mutex serialises every call, as NVML's entry
// points are thread-safe.

#include <mutex>
#include <optional>
#include <vector>

#include "nvml/nvml_abi.h"
#include "state/config.hpp"
#include "state/root.hpp"

// The object an nvmlDevice_t points at. Handles live as long as the library (a caller may
// keep one across nvmlShutdown; it then gets NVML_ERROR_UNINITIALIZED, not a crash).
struct nvmlDevice_st {
    unsigned index;
};

namespace gpusim::nvml {

struct LoadedDriver {
    Root root;
    SimConfig config;
};

// The GPUs' device files, held open from nvmlInit to the last nvmlShutdown as the real
// driver library holds /dev/nvidia*: a process using NVML is one of the device's
// clients, and `nvidia-smi -r` refuses to reset a GPU it has open.
class OpenDevices {
  public:
    OpenDevices() = default;
    OpenDevices(const Root& root, const std::vector<GpuSpec>& gpus);
    ~OpenDevices();
    OpenDevices(const OpenDevices&) = delete;
    OpenDevices& operator=(const OpenDevices&) = delete;

  private:
    std::vector<int> fds_;
};

// What a device query gets to work with.
struct DeviceContext {
    const LoadedDriver& driver;
    unsigned index;
    const GpuSpec& gpu;
};

class DriverSession {
  public:
    static DriverSession& instance();

    // The host comes from GPUSIM_ROOT; without one the "driver is not loaded".
    nvmlReturn_t init();
    nvmlReturn_t shutdown();

    // Runs `query(const LoadedDriver&)` under the session lock once initialised. Exceptions
    // (allocation failures) become NVML_ERROR_UNKNOWN: nothing unwinds into C callers.
    template <class Query>
    nvmlReturn_t with_driver(Query&& query);

    // Resolves `device` and runs `query(const DeviceContext&)`.
    template <class Query>
    nvmlReturn_t with_device(nvmlDevice_t device, Query&& query);

    static nvmlDevice_t handle(unsigned index);

  private:
    DriverSession() = default;

    std::mutex mutex_;
    unsigned references_ = 0;
    std::optional<LoadedDriver> driver_;
    std::optional<OpenDevices> open_devices_;
};

// The NVML code for a failure the scenario configured.
nvmlReturn_t failure_code(Failure failure);

template <class Query>
nvmlReturn_t DriverSession::with_driver(Query&& query) {
    try {
        const std::lock_guard lock(mutex_);
        if (references_ == 0 || !driver_) return NVML_ERROR_UNINITIALIZED;
        return query(*driver_);
    } catch (...) {
        return NVML_ERROR_UNKNOWN;
    }
}

template <class Query>
nvmlReturn_t DriverSession::with_device(nvmlDevice_t device, Query&& query) {
    return with_driver([&](const LoadedDriver& driver) {
        if (device == nullptr || device->index >= driver.config.gpus.size() ||
            device != handle(device->index)) {
            return NVML_ERROR_INVALID_ARGUMENT;
        }
        return query(DeviceContext{driver, device->index, driver.config.gpus[device->index]});
    });
}

}  // namespace gpusim::nvml
