// NVML entry points: architecture and NVLink topology, as the scenario describes them. A GPU
// without `nvlinks:` has no NVLink (NOT_SUPPORTED, like a PCIe card); one with N entries has
// N active links, and the links after them exist but are inactive.

#include <algorithm>
#include <cstring>

#include "nvml/answers.hpp"
#include "nvml/driver_session.hpp"
#include "state/pci.hpp"

using gpusim::nvml::DeviceContext;
using gpusim::nvml::DriverSession;

namespace {

// NOT_SUPPORTED without NVLink, INVALID_ARGUMENT past the last link, as the driver answers.
nvmlReturn_t check_link(const DeviceContext& device, unsigned int link) {
    if (device.gpu.lost) return NVML_ERROR_GPU_IS_LOST;
    if (!device.gpu.nvlink_remote_bus_ids) return NVML_ERROR_NOT_SUPPORTED;
    if (link >= NVML_NVLINK_MAX_LINKS) return NVML_ERROR_INVALID_ARGUMENT;
    return NVML_SUCCESS;
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t device, nvmlDeviceArchitecture_t* arch) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        if (arch == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
        // Known from the device id at probe time: answers for a lost GPU too.
        if (!context.gpu.architecture.ok()) {
            return gpusim::nvml::failure_code(context.gpu.architecture.failure);
        }
        *arch = context.gpu.architecture.value;
        return NVML_SUCCESS;
    });
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
                                      nvmlEnableState_t* isActive) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        if (isActive == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
        if (const nvmlReturn_t status = check_link(context, link); status != NVML_SUCCESS) {
            return status;
        }
        *isActive = link < context.gpu.nvlink_remote_bus_ids->size() ? NVML_FEATURE_ENABLED
                                                                     : NVML_FEATURE_DISABLED;
        return NVML_SUCCESS;
    });
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link,
                                                 nvmlPciInfo_t* pci) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        if (pci == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
        if (const nvmlReturn_t status = check_link(context, link); status != NVML_SUCCESS) {
            return status;
        }
        const auto& remotes = *context.gpu.nvlink_remote_bus_ids;
        if (link >= remotes.size()) return NVML_ERROR_NOT_SUPPORTED;  // an inactive link
        const auto address = gpusim::parse_pci_address(remotes[link]);
        if (!address) return NVML_ERROR_UNKNOWN;
        std::memset(pci, 0, sizeof(*pci));
        const std::string legacy = gpusim::format_legacy_bus_id(*address);
        std::memcpy(pci->busIdLegacy, legacy.data(),
                    std::min(legacy.size(), sizeof(pci->busIdLegacy) - 1));
        std::memcpy(pci->busId, remotes[link].data(),
                    std::min(remotes[link].size(), sizeof(pci->busId) - 1));
        pci->domain = address->domain;
        pci->bus = address->bus;
        pci->device = address->device;
        return NVML_SUCCESS;
    });
}

}  // extern "C"
