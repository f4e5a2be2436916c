// NVML entry points: device enumeration and identity. These answer even for a lost GPU, as
// the driver keeps what it learnt at probe time.

#include <algorithm>
#include <cstring>

#include "nvml/answers.hpp"
#include "nvml/driver_session.hpp"
#include "state/pci.hpp"

using gpusim::nvml::DeviceContext;
using gpusim::nvml::DriverSession;
using gpusim::nvml::LoadedDriver;

namespace {

// The fields every version of nvmlPciInfo_t shares: legacy bus id, numbers and ids. The plain
// and _v2 queries date from a 52-byte struct and write nothing past these 36 bytes.
nvmlReturn_t fill_pci_prefix(const DeviceContext& device, nvmlPciInfo_t* pci) {
    if (pci == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    const auto address = gpusim::parse_pci_address(device.gpu.pci_bus_id);
    if (!address) return NVML_ERROR_UNKNOWN;
    const std::string legacy = gpusim::format_legacy_bus_id(*address);
    std::memset(pci->busIdLegacy, 0, sizeof(pci->busIdLegacy));
    std::memcpy(pci->busIdLegacy, legacy.data(),
                std::min(legacy.size(), sizeof(pci->busIdLegacy) - 1));
    pci->domain = address->domain;
    pci->bus = address->bus;
    pci->device = address->device;
    pci->pciDeviceId = device.gpu.pci_device_id;
    pci->pciSubSystemId = device.gpu.pci_subsystem_id;
    return NVML_SUCCESS;
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* deviceCount) {
    return DriverSession::instance().with_driver([&](const LoadedDriver& driver) {
        if (deviceCount == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
        *deviceCount = static_cast<unsigned int>(driver.config.gpus.size());
        return NVML_SUCCESS;
    });
}

nvmlReturn_t nvmlDeviceGetCount(unsigned int* deviceCount) {
    return nvmlDeviceGetCount_v2(deviceCount);
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
    return DriverSession::instance().with_driver([&](const LoadedDriver& driver) {
        if (device == nullptr || index >= driver.config.gpus.size()) {
            return NVML_ERROR_INVALID_ARGUMENT;
        }
        *device = DriverSession::handle(index);
        return NVML_SUCCESS;
    });
}

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t* device) {
    return nvmlDeviceGetHandleByIndex_v2(index, device);
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        return gpusim::nvml::copy_string(context.gpu.name, name, length);
    });
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        return gpusim::nvml::copy_string(context.gpu.uuid, uuid, length);
    });
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        const nvmlReturn_t status = fill_pci_prefix(context, pci);
        if (status != NVML_SUCCESS) return status;
        std::memset(pci->busId, 0, sizeof(pci->busId));
        std::memcpy(pci->busId, context.gpu.pci_bus_id.data(),
                    std::min(context.gpu.pci_bus_id.size(), sizeof(pci->busId) - 1));
        return NVML_SUCCESS;
    });
}

nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t* pci) {
    return DriverSession::instance().with_device(
        device, [&](const DeviceContext& context) { return fill_pci_prefix(context, pci); });
}

nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t* pci) {
    return nvmlDeviceGetPciInfo_v2(device, pci);
}

nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int* minorNumber) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        if (minorNumber == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
        *minorNumber = context.gpu.minor;  // DIR/dev/nvidia<minor>
        return NVML_SUCCESS;
    });
}

nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int* index) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        if (index == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
        *index = context.index;
        return NVML_SUCCESS;
    });
}

}  // extern "C"
