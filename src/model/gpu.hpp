// What a backend reports about one GPU. Every metric is optional: a GPU that
// does not report a value has it empty, it is never dropped for that.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpukill {

enum class Vendor { nvidia, amd, intel, other };
const char* to_string(Vendor vendor);

// How the driver classifies a process on a GPU.
enum class DriverProcessKind { compute, graphics, mps };
const char* to_string(DriverProcessKind kind);

struct DriverProcess {
    pid_t pid = 0;                              // host PID as the driver reports it
    std::optional<std::uint64_t> memory_bytes;  // empty when the driver says "not available"
    DriverProcessKind kind = DriverProcessKind::compute;
    // Its share of the GPU's engines since the previous sample (DRM fdinfo); empty
    // where the driver does not say (NVML) or on a first sample.
    std::optional<unsigned> utilization_percent;
};

struct GpuReading {
    Vendor vendor = Vendor::nvidia;
    std::string backend;         // "nvml", "drm"
    unsigned backend_index = 0;  // index within its backend (NVML index)
    std::optional<std::string> name;
    std::optional<std::string> uuid;
    std::optional<std::string> pci_bus_id;  // normalised: "0000:3b:00.0", lower case
    std::optional<unsigned> nvidia_minor;   // links /dev/nvidiaN to this GPU
    std::optional<std::string> driver_version;
    // DRM GPUs: the kernel driver ("amdgpu", "i915", "xe", ...) and the DRM node names
    // ("card1", "renderD128") under /dev/dri.
    std::optional<std::string> driver;
    std::optional<std::string> drm_card;
    std::optional<std::string> drm_render_node;

    std::optional<std::uint64_t> memory_total_bytes;
    std::optional<std::uint64_t> memory_used_bytes;
    // NVML: free = total less the driver's reservation and the used memory.
    std::optional<std::uint64_t> memory_free_bytes;
    std::optional<std::uint64_t> memory_reserved_bytes;
    std::optional<unsigned> utilization_percent;
    std::optional<unsigned> memory_utilization_percent;
    // amdgpu GTT: system memory mapped for the GPU (not part of memory_*).
    std::optional<std::uint64_t> gtt_total_bytes;
    std::optional<std::uint64_t> gtt_used_bytes;
    std::optional<int> temperature_celsius;
    std::optional<double> power_watts;
    std::optional<double> power_limit_watts;
    // The board's energy counter: NVML's since the driver loaded, hwmon's energy1_input
    // since its own origin. Only differences between two readings mean anything.
    std::optional<double> energy_joules;
    std::optional<std::uint64_t> ecc_errors_corrected_volatile;
    std::optional<std::uint64_t> ecc_errors_uncorrected_volatile;
    std::optional<bool> persistence_mode;
    std::optional<bool> mig_mode;
    // Telemetry dcgm-exporter's default counters carry (NVML; docs/METRICS.md): clocks
    // now, the memory's own temperature, PCIe replays and remapped rows since the driver
    // loaded, video engines' utilisation, and NVLink data moved (sent and received, all
    // links, KiB since the driver loaded; present only on a GPU with NVLink).
    std::optional<unsigned> sm_clock_mhz;
    std::optional<unsigned> memory_clock_mhz;
    std::optional<int> memory_temperature_celsius;
    std::optional<std::uint64_t> pcie_replay_count;
    std::optional<unsigned> encoder_utilization_percent;
    std::optional<unsigned> decoder_utilization_percent;
    std::optional<std::uint64_t> remapped_rows_correctable;
    std::optional<std::uint64_t> remapped_rows_uncorrectable;
    std::optional<bool> row_remap_failed;
    std::optional<std::uint64_t> nvlink_data_kib;
    // NVML's nvmlDeviceArchitecture_t (model/nvidia_architecture.hpp names it).
    std::optional<unsigned> nvml_architecture;
    // PCI bus ids (normalised) at the far end of the GPU's active NVLinks: other GPUs or
    // NVSwitches, each once. Empty: no NVLink or none active; unknown: unreadable.
    std::optional<std::vector<std::string>> nvlink_peer_bus_ids;

    // Empty optional: the process list could not be read (distinct from "no processes").
    std::optional<std::vector<DriverProcess>> processes;
    // True when the driver's list accounts for all memory processes use (NVML), so
    // used memory beyond it is held by unlisted processes or leaked. False for DRM:
    // VRAM in use there includes the kernel's and firmware's own allocations.
    bool process_list_accounts_memory = true;

    // Values the backend could not read and why, e.g. "temperature: Not Supported".
    std::vector<std::string> problems;
    bool lost = false;  // the driver reports the GPU as fallen off the bus
};

}  // namespace gpukill
