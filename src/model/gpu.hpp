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

    std::optional<std::uint64_t> memory_total_bytes;
    std::optional<std::uint64_t> memory_used_bytes;
    std::optional<unsigned> utilization_percent;
    std::optional<unsigned> memory_utilization_percent;
    std::optional<int> temperature_celsius;
    std::optional<double> power_watts;
    std::optional<double> power_limit_watts;
    std::optional<std::uint64_t> ecc_errors_corrected_volatile;
    std::optional<std::uint64_t> ecc_errors_uncorrected_volatile;
    std::optional<bool> persistence_mode;
    std::optional<bool> mig_mode;

    // Empty optional: the process list could not be read (distinct from "no processes").
    std::optional<std::vector<DriverProcess>> processes;

    // Values the backend could not read and why, e.g. "temperature: Not Supported".
    std::vector<std::string> problems;
    bool lost = false;  // the driver reports the GPU as fallen off the bus
};

}  // namespace gpukill
