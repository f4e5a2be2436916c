// The telemetry dcgm-exporter exports by default that NVML gives directly (its
// default-counters.csv, less what needs DCGM's own profiling module): clocks, the memory
// temperature, PCIe replays, video engine utilisation, remapped rows, NVLink data moved.
// Each value is left empty where the library lacks the entry point or the GPU does not
// report it; none is a problem worth a line (most boards lack one or another).
#pragma once

#include "backends/nvml/nvml_library.hpp"
#include "model/gpu.hpp"

namespace gpukill::nvml {

// Fills the telemetry fields of `gpu` (model/gpu.hpp) from `device`. `has_nvlink`:
// the GPU has at least one active NVLink (the NVLink totals are read only then).
void read_telemetry(const NvmlLibrary& library, nvmlDevice_t device, bool has_nvlink,
                    GpuReading& gpu);

}  // namespace gpukill::nvml
