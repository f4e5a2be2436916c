#include "backends/nvml/nvml_backend.hpp"

#include <fmt/format.h>

#include <array>
#include <cstddef>
#include <cstring>
#include <vector>

#include "backends/nvml/nvml_process_list.hpp"
#include "backends/nvml/nvml_telemetry.hpp"
#include "backends/nvml/nvml_topology.hpp"
#include "model/pci_bus_id.hpp"

namespace gpukill::nvml {
namespace {

std::string c_string(const char* buffer, std::size_t size) {
    return std::string(buffer, strnlen(buffer, size));
}

// The process-list handshake: ask for the count, size a buffer with headroom for
// processes that start meanwhile, and retry while the driver says it grew.
Result<std::vector<DriverProcess>> read_process_list(const NvmlLibrary& library,
                                                     const ProcessListFn& list, nvmlDevice_t device,
                                                     DriverProcessKind kind) {
    if (list.call == nullptr) return std::vector<DriverProcess>{};
    const std::size_t stride = process_entry_size(list.abi);
    unsigned int count = 0;
    nvmlReturn_t rc = list.call(device, &count, nullptr);
    if (rc == NVML_SUCCESS) return std::vector<DriverProcess>{};  // nobody on this GPU
    for (int attempt = 0; attempt < 5 && rc == NVML_ERROR_INSUFFICIENT_SIZE; ++attempt) {
        unsigned int capacity = count + 16;
        std::vector<std::byte> buffer(static_cast<std::size_t>(capacity) * stride);
        count = capacity;
        rc = list.call(device, &count, buffer.data());
        if (rc == NVML_SUCCESS) {
            return decode_process_entries(buffer, count, list.abi, kind);
        }
    }
    return fail(library.error_text(rc), rc);
}

}  // namespace

NvmlBackend::NvmlBackend(const std::optional<std::string>& library_path) {
    status_.name = "nvml";
    status_.explicitly_requested = library_path.has_value();
    std::vector<std::string> candidates =
        library_path ? std::vector<std::string>{*library_path} : NvmlLibrary::default_names();
    std::string last_error;
    for (const std::string& candidate : candidates) {
        auto opened = NvmlLibrary::open(candidate);
        if (opened) {
            library_ = std::move(*opened);
            break;
        }
        last_error = opened.error().what;
    }
    if (!library_) {
        status_.detail =
            library_path ? last_error : "no NVIDIA driver library (libnvidia-ml.so.1) found";
        status_.advice = library_path
                             ? "check the path given with --nvml-library or GPUKILL_NVML_LIBRARY"
                             : "if this host has NVIDIA GPUs, install the NVIDIA driver, or point "
                               "--nvml-library at libnvidia-ml.so.1";
        return;
    }
    nvmlReturn_t rc = library_->fn().init();
    if (rc != NVML_SUCCESS) {
        status_.detail = fmt::format("{} loaded, but nvmlInit failed: {}", library_->path(),
                                     library_->error_text(rc));
        status_.advice = rc == NVML_ERROR_DRIVER_NOT_LOADED
                             ? "the NVIDIA kernel driver is not loaded: check `lsmod | grep "
                               "nvidia` and `dmesg`"
                         : rc == NVML_ERROR_NO_PERMISSION
                             ? "permission denied opening the NVIDIA device nodes: check "
                               "/dev/nvidia* permissions"
                             : "see `dmesg` for NVIDIA driver errors";
        return;
    }
    initialised_ = true;
    status_.loaded = true;
    status_.detail = fmt::format("loaded {}", library_->path());
    if (library_->fn().system_get_driver_version != nullptr) {
        std::array<char, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE> version{};
        if (library_->fn().system_get_driver_version(version.data(), version.size()) ==
            NVML_SUCCESS) {
            status_.driver_version = c_string(version.data(), version.size());
        }
    }
}

NvmlBackend::~NvmlBackend() {
    if (initialised_) library_->fn().shutdown();
}

void NvmlBackend::without_driver_session(const std::function<void()>& reset) {
    if (!initialised_) {
        reset();
        return;
    }
    library_->fn().shutdown();
    initialised_ = false;
    reset();
    const nvmlReturn_t rc = library_->fn().init();
    if (rc != NVML_SUCCESS) {
        status_.loaded = false;
        status_.detail =
            fmt::format("nvmlInit failed after the reset: {}", library_->error_text(rc));
        status_.advice = "see `dmesg` for NVIDIA driver errors";
        return;
    }
    initialised_ = true;
}

std::vector<GpuReading> NvmlBackend::read_gpus() {
    std::vector<GpuReading> gpus;
    if (!initialised_) return gpus;
    unsigned int count = 0;
    nvmlReturn_t rc = library_->fn().device_get_count(&count);
    if (rc != NVML_SUCCESS) {
        status_.detail = fmt::format("nvmlDeviceGetCount failed: {}", library_->error_text(rc));
        return gpus;
    }
    for (unsigned index = 0; index < count; ++index) gpus.push_back(read_one(index));
    return gpus;
}

GpuReading NvmlBackend::read_one(unsigned index) {
    const NvmlFunctions& f = library_->fn();
    GpuReading gpu;
    gpu.vendor = Vendor::nvidia;
    gpu.backend = "nvml";
    gpu.backend_index = index;
    gpu.driver_version = status_.driver_version;

    // Records a failed call as a problem; GPU_IS_LOST marks the whole GPU.
    auto note = [&](const char* what, nvmlReturn_t code) {
        if (code == NVML_ERROR_GPU_IS_LOST) gpu.lost = true;
        if (code != NVML_ERROR_NOT_SUPPORTED) {
            gpu.problems.push_back(fmt::format("{}: {}", what, library_->error_text(code)));
        }
    };

    nvmlDevice_t device = nullptr;
    nvmlReturn_t rc = f.device_get_handle_by_index(index, &device);
    if (rc != NVML_SUCCESS) {
        note("handle", rc);
        gpu.processes.reset();
        return gpu;
    }
    if (f.device_get_name != nullptr) {
        std::array<char, NVML_DEVICE_NAME_V2_BUFFER_SIZE> name{};
        if ((rc = f.device_get_name(device, name.data(), name.size())) == NVML_SUCCESS) {
            gpu.name = c_string(name.data(), name.size());
        } else {
            note("name", rc);
        }
    }
    if (f.device_get_uuid != nullptr) {
        std::array<char, NVML_DEVICE_UUID_V2_BUFFER_SIZE> uuid{};
        if ((rc = f.device_get_uuid(device, uuid.data(), uuid.size())) == NVML_SUCCESS) {
            gpu.uuid = c_string(uuid.data(), uuid.size());
        } else {
            note("uuid", rc);
        }
    }
    if (f.device_get_pci_info != nullptr) {
        nvmlPciInfo_t pci{};
        if ((rc = f.device_get_pci_info(device, &pci)) == NVML_SUCCESS) {
            gpu.pci_bus_id =
                f.pci_info_fills_bus_id
                    ? normalize_pci_bus_id(c_string(pci.busId, sizeof pci.busId))
                    : normalize_pci_bus_id(c_string(pci.busIdLegacy, sizeof pci.busIdLegacy));
        } else {
            note("pci", rc);
        }
    }
    if (f.device_get_minor_number != nullptr) {
        unsigned int minor = 0;
        if ((rc = f.device_get_minor_number(device, &minor)) == NVML_SUCCESS) {
            gpu.nvidia_minor = minor;
        } else {
            note("minor number", rc);
        }
    }
    // memory_info v2 reports "used" without the driver's reservation; v1 includes it.
    bool have_memory = false;
    if (f.device_get_memory_info_v2 != nullptr) {
        nvmlMemory_v2_t memory{};
        memory.version = nvmlMemory_v2;
        if (f.device_get_memory_info_v2(device, &memory) == NVML_SUCCESS) {
            gpu.memory_total_bytes = memory.total;
            gpu.memory_used_bytes = memory.used;
            gpu.memory_free_bytes = memory.free;
            gpu.memory_reserved_bytes = memory.reserved;
            have_memory = true;
        }
    }
    if (!have_memory && f.device_get_memory_info != nullptr) {
        nvmlMemory_t memory{};
        if ((rc = f.device_get_memory_info(device, &memory)) == NVML_SUCCESS) {
            gpu.memory_total_bytes = memory.total;
            gpu.memory_used_bytes = memory.used;
            gpu.memory_free_bytes = memory.free;
        } else {
            note("memory", rc);
        }
    }
    if (f.device_get_utilization_rates != nullptr) {
        nvmlUtilization_t utilization{};
        if ((rc = f.device_get_utilization_rates(device, &utilization)) == NVML_SUCCESS) {
            gpu.utilization_percent = utilization.gpu;
            gpu.memory_utilization_percent = utilization.memory;
        } else {
            note("utilization", rc);
        }
    }
    if (f.device_get_temperature != nullptr) {
        unsigned int celsius = 0;
        if ((rc = f.device_get_temperature(device, NVML_TEMPERATURE_GPU, &celsius)) ==
            NVML_SUCCESS) {
            gpu.temperature_celsius = static_cast<int>(celsius);
        } else {
            note("temperature", rc);
        }
    }
    if (f.device_get_power_usage != nullptr) {
        unsigned int milliwatts = 0;
        if ((rc = f.device_get_power_usage(device, &milliwatts)) == NVML_SUCCESS) {
            gpu.power_watts = milliwatts / 1000.0;
        } else {
            note("power", rc);
        }
    }
    if (f.device_get_enforced_power_limit != nullptr) {
        unsigned int milliwatts = 0;
        if (f.device_get_enforced_power_limit(device, &milliwatts) == NVML_SUCCESS) {
            gpu.power_limit_watts = milliwatts / 1000.0;
        }
    }
    if (f.device_get_total_energy_consumption != nullptr) {
        unsigned long long millijoules = 0;
        if (f.device_get_total_energy_consumption(device, &millijoules) == NVML_SUCCESS) {
            gpu.energy_joules = static_cast<double>(millijoules) / 1000.0;
        }
    }
    if (f.device_get_total_ecc_errors != nullptr) {
        unsigned long long count = 0;
        if (f.device_get_total_ecc_errors(device, NVML_MEMORY_ERROR_TYPE_CORRECTED,
                                          NVML_VOLATILE_ECC, &count) == NVML_SUCCESS) {
            gpu.ecc_errors_corrected_volatile = count;
        }
        if (f.device_get_total_ecc_errors(device, NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
                                          NVML_VOLATILE_ECC, &count) == NVML_SUCCESS) {
            gpu.ecc_errors_uncorrected_volatile = count;
        }
    }
    if (f.device_get_persistence_mode != nullptr) {
        int mode = 0;
        if (f.device_get_persistence_mode(device, &mode) == NVML_SUCCESS) {
            gpu.persistence_mode = mode != 0;
        }
    }
    if (f.device_get_mig_mode != nullptr) {
        unsigned int current = 0;
        unsigned int pending = 0;
        if (f.device_get_mig_mode(device, &current, &pending) == NVML_SUCCESS) {
            gpu.mig_mode = current != 0;
        }
    }
    gpu.nvml_architecture = read_architecture(*library_, device);
    if (auto peers = read_nvlink_peers(*library_, device)) {
        gpu.nvlink_peer_bus_ids = std::move(*peers);
    } else if (peers.error().errno_value != NVML_ERROR_FUNCTION_NOT_FOUND) {
        note("nvlink", peers.error().errno_value);
    }
    const bool has_nvlink = gpu.nvlink_peer_bus_ids && !gpu.nvlink_peer_bus_ids->empty();
    if (!gpu.lost) read_telemetry(*library_, device, has_nvlink, gpu);

    std::vector<DriverProcess> processes;
    bool processes_known = true;
    const std::array<std::pair<const ProcessListFn*, DriverProcessKind>, 3> lists = {{
        {&f.compute_processes, DriverProcessKind::compute},
        {&f.graphics_processes, DriverProcessKind::graphics},
        {&f.mps_processes, DriverProcessKind::mps},
    }};
    for (const auto& [list, kind] : lists) {
        auto listed = read_process_list(*library_, *list, device, kind);
        if (listed) {
            merge_driver_processes(processes, *listed);
        } else if (listed.error().errno_value != NVML_ERROR_NOT_SUPPORTED) {
            processes_known = false;
            note(fmt::format("{} processes", to_string(kind)).c_str(), listed.error().errno_value);
        }
    }
    if (processes_known) gpu.processes = std::move(processes);
    return gpu;
}

}  // namespace gpukill::nvml
