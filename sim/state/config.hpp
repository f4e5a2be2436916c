#pragma once
// The simulated host's hardware and driver, as `gpusim init` resolves it from a scenario.
// Written once to DIR/gpusim/config.json; immutable afterwards.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "state/drm_config.hpp"
#include "state/error.hpp"

namespace gpusim {

inline constexpr std::size_t kMaxGpus = 64;

// How a query for a metric fails, mirroring the NVML return codes a real GPU gives.
enum class Failure { none, not_supported, no_permission, unknown };

// A value the GPU reports, or the failure it answers with instead.
template <class T>
struct Metric {
    T value{};
    Failure failure = Failure::none;

    bool ok() const { return failure == Failure::none; }
};

struct DriverSpec {
    std::string version;       // nvmlSystemGetDriverVersion
    std::string nvml_version;  // nvmlSystemGetNVMLVersion
    int cuda_version = 0;      // nvmlSystemGetCudaDriverVersion, e.g. 12040
    bool legacy = false;       // driver without the _v3 process queries (R470 era)
};

struct GpuSpec {
    std::string name;
    std::string uuid;
    std::string pci_bus_id;  // canonical "00000000:18:00.0"
    // The device minor: DIR/dev/nvidia<minor>, nvmlDeviceGetMinorNumber. The driver numbers
    // GPUs in probe order, NVML by PCI address, so the two can differ; default the index.
    unsigned minor = 0;
    unsigned pci_device_id = 0;
    unsigned pci_subsystem_id = 0;
    std::uint64_t memory_total_bytes = 0;
    std::uint64_t memory_reserved_bytes = 0;  // held by the driver itself (nvmlMemory_v2_t)
    Metric<unsigned> base_utilization_percent;
    Metric<unsigned> temperature_celsius;
    Metric<double> power_watts;  // idle draw; rises with utilisation up to the limit
    Metric<double> power_limit_watts;
    Metric<bool> persistence_mode;
    Metric<bool> mig_mode;
    Metric<std::uint64_t> ecc_errors_corrected;
    Metric<std::uint64_t> ecc_errors_uncorrected;
    Failure memory_info_failure = Failure::none;  // nvmlDeviceGetMemoryInfo*
    Failure processes_failure = Failure::none;    // the running-process queries
    bool memory_not_available = false;            // usedGpuMemory = NVML_VALUE_NOT_AVAILABLE
    bool lost = false;                            // fallen off the bus: NVML_ERROR_GPU_IS_LOST
    // nvmlDeviceGetArchitecture (nvmlDeviceArchitecture_t); not supported unless given.
    Metric<unsigned> architecture{0, Failure::not_supported};
    // The PCI bus id (canonical) at the far end of each active NVLink, link 0 first: other
    // GPUs or NVSwitches. Empty optional: the GPU has no NVLink (NOT_SUPPORTED).
    std::optional<std::vector<std::string>> nvlink_remote_bus_ids;
    Failure reset_failure = Failure::none;  // how `nvidia-smi -r` fails for this GPU
    // What dcgm-exporter's default counters read (docs/SIMULATOR.md, "Telemetry").
    Metric<unsigned> sm_clock_mhz;      // under full load; idle the clock drops (usage.hpp)
    Metric<unsigned> memory_clock_mhz;  // constant
    Metric<unsigned> memory_temperature_celsius;
    Metric<std::uint64_t> pcie_replay_count;
    Metric<unsigned> encoder_utilization_percent;
    Metric<unsigned> decoder_utilization_percent;
    Metric<std::uint64_t> remapped_rows_correctable;
    Metric<std::uint64_t> remapped_rows_uncorrectable;
    Metric<bool> row_remap_failure;
};

struct SimConfig {
    DriverSpec driver;
    std::vector<GpuSpec> gpus;
    std::vector<DrmGpuSpec> drm_gpus;  // AMD, Intel, other DRM GPUs (state/drm_config.hpp)
};

nlohmann::json config_to_json(const SimConfig& config);
// Errors (kExitFailure) say which field is missing or of the wrong type.
Result<SimConfig> config_from_json(const nlohmann::json& json);

std::string_view failure_name(Failure failure);
// "not_supported" and friends; Failure::none for anything else.
Failure failure_from_name(std::string_view name);

}  // namespace gpusim
