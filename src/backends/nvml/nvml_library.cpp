#include "backends/nvml/nvml_library.hpp"

#include <dlfcn.h>

#include <fmt/format.h>

#include <initializer_list>

namespace gpukill::nvml {
namespace {

void* first_symbol(void* handle, std::initializer_list<const char*> names, const char** found) {
    for (const char* name : names) {
        if (void* symbol = dlsym(handle, name)) {
            if (found != nullptr) *found = name;
            return symbol;
        }
    }
    return nullptr;
}

template <class Fn>
void bind(void* handle, Fn& target, std::initializer_list<const char*> names) {
    target = reinterpret_cast<Fn>(first_symbol(handle, names, nullptr));
}

// _v3 and _v2 write nvmlProcessInfo_v2_t (24 bytes); the plain call writes v1 (16 bytes).
ProcessListFn bind_process_list(void* handle, const std::string& base) {
    const std::string v3 = base + "_v3";
    const std::string v2 = base + "_v2";
    ProcessListFn result;
    const char* found = nullptr;
    void* symbol = first_symbol(handle, {v3.c_str(), v2.c_str()}, &found);
    if (symbol != nullptr) {
        result.call = reinterpret_cast<ProcessListFn::Fn>(symbol);
        result.abi = ProcessListAbi::v2;
        result.symbol = (v3 == found) ? "_v3" : "_v2";
        return result;
    }
    symbol = dlsym(handle, base.c_str());
    if (symbol != nullptr) {
        result.call = reinterpret_cast<ProcessListFn::Fn>(symbol);
        result.abi = ProcessListAbi::v1;
        result.symbol = "plain";
    }
    return result;
}

}  // namespace

const std::vector<std::string>& NvmlLibrary::default_names() {
    static const std::vector<std::string> names = {"libnvidia-ml.so.1", "libnvidia-ml.so"};
    return names;
}

Result<std::unique_ptr<NvmlLibrary>> NvmlLibrary::open(const std::string& path) {
    dlerror();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        const char* why = dlerror();
        return fail(fmt::format("cannot load NVML library {}: {}", path,
                                why != nullptr ? why : "unknown dlopen error"));
    }
    std::unique_ptr<NvmlLibrary> library(new NvmlLibrary(handle, path));
    NvmlFunctions& f = library->functions_;
    bind(handle, f.init, {"nvmlInit_v2", "nvmlInit"});
    bind(handle, f.shutdown, {"nvmlShutdown"});
    bind(handle, f.error_string, {"nvmlErrorString"});
    bind(handle, f.device_get_count, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"});
    bind(handle, f.device_get_handle_by_index,
         {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"});
    if (f.init == nullptr || f.shutdown == nullptr || f.device_get_count == nullptr ||
        f.device_get_handle_by_index == nullptr) {
        return fail(
            fmt::format("{} is not an NVML library (it lacks nvmlInit, nvmlDeviceGetCount or "
                        "nvmlDeviceGetHandleByIndex)",
                        path));
    }
    bind(handle, f.system_get_driver_version, {"nvmlSystemGetDriverVersion"});
    bind(handle, f.device_get_name, {"nvmlDeviceGetName"});
    bind(handle, f.device_get_uuid, {"nvmlDeviceGetUUID"});
    bind(handle, f.device_get_pci_info, {"nvmlDeviceGetPciInfo_v3"});
    f.pci_info_fills_bus_id = f.device_get_pci_info != nullptr;
    if (!f.pci_info_fills_bus_id) {
        bind(handle, f.device_get_pci_info, {"nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo"});
    }
    bind(handle, f.device_get_minor_number, {"nvmlDeviceGetMinorNumber"});
    bind(handle, f.device_get_memory_info, {"nvmlDeviceGetMemoryInfo"});
    bind(handle, f.device_get_memory_info_v2, {"nvmlDeviceGetMemoryInfo_v2"});
    bind(handle, f.device_get_utilization_rates, {"nvmlDeviceGetUtilizationRates"});
    bind(handle, f.device_get_temperature, {"nvmlDeviceGetTemperature"});
    bind(handle, f.device_get_power_usage, {"nvmlDeviceGetPowerUsage"});
    bind(handle, f.device_get_enforced_power_limit,
         {"nvmlDeviceGetEnforcedPowerLimit", "nvmlDeviceGetPowerManagementLimit"});
    bind(handle, f.device_get_total_energy_consumption, {"nvmlDeviceGetTotalEnergyConsumption"});
    bind(handle, f.device_get_total_ecc_errors, {"nvmlDeviceGetTotalEccErrors"});
    bind(handle, f.device_get_persistence_mode, {"nvmlDeviceGetPersistenceMode"});
    bind(handle, f.device_get_mig_mode, {"nvmlDeviceGetMigMode"});
    bind(handle, f.device_get_architecture, {"nvmlDeviceGetArchitecture"});
    bind(handle, f.device_get_nvlink_state, {"nvmlDeviceGetNvLinkState"});
    // _v2 fills the whole nvmlPciInfo_t, busId included; the plain one only the legacy part.
    bind(handle, f.device_get_nvlink_remote_pci_info,
         {"nvmlDeviceGetNvLinkRemotePciInfo_v2", "nvmlDeviceGetNvLinkRemotePciInfo"});
    bind(handle, f.device_get_clock_info, {"nvmlDeviceGetClockInfo"});
    bind(handle, f.device_get_field_values, {"nvmlDeviceGetFieldValues"});
    bind(handle, f.device_get_pcie_replay_counter, {"nvmlDeviceGetPcieReplayCounter"});
    bind(handle, f.device_get_encoder_utilization, {"nvmlDeviceGetEncoderUtilization"});
    bind(handle, f.device_get_decoder_utilization, {"nvmlDeviceGetDecoderUtilization"});
    bind(handle, f.device_get_remapped_rows, {"nvmlDeviceGetRemappedRows"});
    f.compute_processes = bind_process_list(handle, "nvmlDeviceGetComputeRunningProcesses");
    f.graphics_processes = bind_process_list(handle, "nvmlDeviceGetGraphicsRunningProcesses");
    f.mps_processes = bind_process_list(handle, "nvmlDeviceGetMPSComputeRunningProcesses");
    return library;
}

NvmlLibrary::~NvmlLibrary() {
    // NVML must not be unloaded while initialised; the backend shuts it down first.
    if (handle_ != nullptr) dlclose(handle_);
}

std::string NvmlLibrary::error_text(nvmlReturn_t code) const {
    if (functions_.error_string != nullptr) {
        if (const char* text = functions_.error_string(code)) return text;
    }
    return fmt::format("NVML error {}", code);
}

}  // namespace gpukill::nvml
