// The one interface every GPU vendor sits behind. A backend enumerates its GPUs,
// reads their metrics and the driver's process lists, and says plainly whether it
// loaded and why not. Host-side facts (/proc, device files) are not its business.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/backend_status.hpp"
#include "model/gpu.hpp"

namespace gpukill {

class Backend {
  public:
    virtual ~Backend() = default;
    virtual const BackendStatus& status() const = 0;
    // The vendor whose GPUs this backend serves; Vendor::other for one that spans vendors
    // (DRM), whose readings each carry their own vendor.
    virtual Vendor vendor() const = 0;
    // Every GPU with its metrics and process lists. A failing call on one GPU marks
    // that value unknown (and adds a problem line); it never drops the GPU.
    virtual std::vector<GpuReading> read_gpus() = 0;

    // Runs `reset`, a vendor reset of some of this backend's GPUs (reclaim/reset_exec),
    // with the backend's own driver session let go, and takes the session up again
    // afterwards. NVML keeps every GPU's device file open while initialised and
    // nvidia-smi refuses to reset a GPU anyone has open, so the NVML backend shuts NVML
    // down around it; a long-running process (the agent) keeps its backend throughout.
    // Backends that hold nothing open (DRM reads sysfs) just run it.
    virtual void without_driver_session(const std::function<void()>& reset) { reset(); }
};

}  // namespace gpukill
