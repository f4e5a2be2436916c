// Decoding NVML process lists: pure functions over the raw buffers the driver fills.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "backends/nvml/nvml_library.hpp"
#include "model/gpu.hpp"

namespace gpukill::nvml {

// Bytes one entry occupies for the given ABI (16 for v1, 24 for v2/_v3).
std::size_t process_entry_size(ProcessListAbi abi);

// Turns `count` entries of `buffer` into processes. NVML_VALUE_NOT_AVAILABLE memory
// becomes an empty optional, never 16 EiB.
std::vector<DriverProcess> decode_process_entries(std::span<const std::byte> buffer, unsigned count,
                                                  ProcessListAbi abi, DriverProcessKind kind);

// Adds `more` into `into`, one entry per PID: a process in both the compute and
// graphics lists is one process; its memory is the larger known value.
void merge_driver_processes(std::vector<DriverProcess>& into,
                            const std::vector<DriverProcess>& more);

}  // namespace gpukill::nvml
