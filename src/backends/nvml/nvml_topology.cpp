#include "backends/nvml/nvml_topology.hpp"

#include <algorithm>
#include <cstring>

#include "model/pci_bus_id.hpp"

namespace gpukill::nvml {
namespace {

// _v2 fills busId; the plain query leaves it zeroed and fills only busIdLegacy.
std::optional<std::string> remote_bus_id(const nvmlPciInfo_t& pci) {
    const std::size_t full = strnlen(pci.busId, sizeof pci.busId);
    if (full > 0) return normalize_pci_bus_id(std::string_view(pci.busId, full));
    return normalize_pci_bus_id(
        std::string_view(pci.busIdLegacy, strnlen(pci.busIdLegacy, sizeof pci.busIdLegacy)));
}

}  // namespace

std::optional<unsigned> read_architecture(const NvmlLibrary& library, nvmlDevice_t device) {
    if (library.fn().device_get_architecture == nullptr) return std::nullopt;
    unsigned int architecture = 0;
    if (library.fn().device_get_architecture(device, &architecture) != NVML_SUCCESS) {
        return std::nullopt;
    }
    return architecture;
}

Result<std::vector<std::string>> read_nvlink_peers(const NvmlLibrary& library,
                                                   nvmlDevice_t device) {
    const NvmlFunctions& f = library.fn();
    if (f.device_get_nvlink_state == nullptr || f.device_get_nvlink_remote_pci_info == nullptr) {
        return fail("the NVML library has no NVLink queries", NVML_ERROR_FUNCTION_NOT_FOUND);
    }
    std::vector<std::string> peers;
    for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
        int active = 0;
        nvmlReturn_t rc = f.device_get_nvlink_state(device, link, &active);
        if (rc == NVML_ERROR_INVALID_ARGUMENT) break;  // past the device's last link
        if (rc == NVML_ERROR_NOT_SUPPORTED) {
            if (link == 0) return peers;  // no NVLink at all: a PCIe-only GPU
            continue;
        }
        if (rc != NVML_SUCCESS) return fail(library.error_text(rc), rc);
        if (active != NVML_FEATURE_ENABLED) continue;
        nvmlPciInfo_t pci{};
        rc = f.device_get_nvlink_remote_pci_info(device, link, &pci);
        if (rc != NVML_SUCCESS) return fail(library.error_text(rc), rc);
        auto bus_id = remote_bus_id(pci);
        if (!bus_id) {
            return fail(
                "NVLink " + std::to_string(link) + " reports an unreadable remote PCI address",
                NVML_ERROR_UNKNOWN);
        }
        if (std::find(peers.begin(), peers.end(), *bus_id) == peers.end()) {
            peers.push_back(*bus_id);
        }
    }
    return peers;
}

}  // namespace gpukill::nvml
