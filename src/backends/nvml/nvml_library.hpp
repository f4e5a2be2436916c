// Loads an NVML library with dlopen and resolves the entry points gpukill uses,
// newest symbol first with fallback (_v3, _v2, plain), as nvtop does. A library
// without the entry points every NVML has is rejected as "not NVML".
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/nvml/nvml_api.hpp"
#include "model/result.hpp"

namespace gpukill::nvml {

// Which stride a resolved process-list function writes.
enum class ProcessListAbi { v1, v2 };

struct ProcessListFn {
    using Fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*, void*);
    Fn call = nullptr;
    ProcessListAbi abi = ProcessListAbi::v1;
    const char* symbol = nullptr;
};

struct NvmlFunctions {
    nvmlReturn_t (*init)() = nullptr;
    nvmlReturn_t (*shutdown)() = nullptr;
    const char* (*error_string)(nvmlReturn_t) = nullptr;
    nvmlReturn_t (*system_get_driver_version)(char*, unsigned int) = nullptr;
    nvmlReturn_t (*device_get_count)(unsigned int*) = nullptr;
    nvmlReturn_t (*device_get_handle_by_index)(unsigned int, nvmlDevice_t*) = nullptr;
    nvmlReturn_t (*device_get_name)(nvmlDevice_t, char*, unsigned int) = nullptr;
    nvmlReturn_t (*device_get_uuid)(nvmlDevice_t, char*, unsigned int) = nullptr;
    nvmlReturn_t (*device_get_pci_info)(nvmlDevice_t, nvmlPciInfo_t*) = nullptr;
    // Only _v3 fills busId; older entry points fill the first 16 bytes (busIdLegacy).
    bool pci_info_fills_bus_id = false;
    nvmlReturn_t (*device_get_minor_number)(nvmlDevice_t, unsigned int*) = nullptr;
    nvmlReturn_t (*device_get_memory_info)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
    nvmlReturn_t (*device_get_memory_info_v2)(nvmlDevice_t, nvmlMemory_v2_t*) = nullptr;
    nvmlReturn_t (*device_get_utilization_rates)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
    nvmlReturn_t (*device_get_temperature)(nvmlDevice_t, int, unsigned int*) = nullptr;
    nvmlReturn_t (*device_get_power_usage)(nvmlDevice_t, unsigned int*) = nullptr;
    nvmlReturn_t (*device_get_enforced_power_limit)(nvmlDevice_t, unsigned int*) = nullptr;
    // Millijoules since the driver was last loaded; Volta and later.
    nvmlReturn_t (*device_get_total_energy_consumption)(nvmlDevice_t,
                                                        unsigned long long*) = nullptr;
    nvmlReturn_t (*device_get_total_ecc_errors)(nvmlDevice_t, int, int,
                                                unsigned long long*) = nullptr;
    nvmlReturn_t (*device_get_persistence_mode)(nvmlDevice_t, int*) = nullptr;
    nvmlReturn_t (*device_get_mig_mode)(nvmlDevice_t, unsigned int*, unsigned int*) = nullptr;
    nvmlReturn_t (*device_get_architecture)(nvmlDevice_t, unsigned int*) = nullptr;
    nvmlReturn_t (*device_get_nvlink_state)(nvmlDevice_t, unsigned int, int*) = nullptr;
    nvmlReturn_t (*device_get_nvlink_remote_pci_info)(nvmlDevice_t, unsigned int,
                                                      nvmlPciInfo_t*) = nullptr;
    // dcgm-exporter's default counters (nvml_telemetry.hpp).
    nvmlReturn_t (*device_get_clock_info)(nvmlDevice_t, int, unsigned int*) = nullptr;
    nvmlReturn_t (*device_get_field_values)(nvmlDevice_t, int, nvmlFieldValue_t*) = nullptr;
    nvmlReturn_t (*device_get_pcie_replay_counter)(nvmlDevice_t, unsigned int*) = nullptr;
    nvmlReturn_t (*device_get_encoder_utilization)(nvmlDevice_t, unsigned int*,
                                                   unsigned int*) = nullptr;
    nvmlReturn_t (*device_get_decoder_utilization)(nvmlDevice_t, unsigned int*,
                                                   unsigned int*) = nullptr;
    nvmlReturn_t (*device_get_remapped_rows)(nvmlDevice_t, unsigned int*, unsigned int*,
                                             unsigned int*, unsigned int*) = nullptr;
    ProcessListFn compute_processes;
    ProcessListFn graphics_processes;
    ProcessListFn mps_processes;
};

class NvmlLibrary {
  public:
    // Opens `path` (a file path or soname). Fails with one line saying why:
    // not found, not loadable, or not an NVML library.
    static Result<std::unique_ptr<NvmlLibrary>> open(const std::string& path);
    // The sonames tried when no path is configured, in order.
    static const std::vector<std::string>& default_names();

    ~NvmlLibrary();
    NvmlLibrary(const NvmlLibrary&) = delete;
    NvmlLibrary& operator=(const NvmlLibrary&) = delete;

    const NvmlFunctions& fn() const { return functions_; }
    const std::string& path() const { return path_; }
    std::string error_text(nvmlReturn_t code) const;

  private:
    NvmlLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
    void* handle_;
    std::string path_;
    NvmlFunctions functions_;
};

}  // namespace gpukill::nvml
