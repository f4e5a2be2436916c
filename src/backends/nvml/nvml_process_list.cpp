#include "backends/nvml/nvml_process_list.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace gpukill::nvml {

std::size_t process_entry_size(ProcessListAbi abi) {
    return abi == ProcessListAbi::v2 ? sizeof(nvmlProcessInfo_v2_t) : sizeof(nvmlProcessInfo_v1_t);
}

std::vector<DriverProcess> decode_process_entries(std::span<const std::byte> buffer, unsigned count,
                                                  ProcessListAbi abi, DriverProcessKind kind) {
    const std::size_t stride = process_entry_size(abi);
    const std::size_t usable = std::min<std::size_t>(count, buffer.size() / stride);
    std::vector<DriverProcess> processes;
    processes.reserve(usable);
    for (std::size_t i = 0; i < usable; ++i) {
        // Both layouts begin with {unsigned pid; unsigned long long usedGpuMemory}.
        nvmlProcessInfo_v1_t entry{};
        std::memcpy(&entry, buffer.data() + i * stride, sizeof entry);
        // PID 0 (an empty slot) or one beyond pid_t cannot name a process.
        if (entry.pid == 0 || entry.pid > static_cast<unsigned>(INT32_MAX)) continue;
        DriverProcess process;
        process.pid = static_cast<pid_t>(entry.pid);
        if (entry.usedGpuMemory != NVML_VALUE_NOT_AVAILABLE) {
            process.memory_bytes = entry.usedGpuMemory;
        }
        process.kind = kind;
        processes.push_back(process);
    }
    return processes;
}

void merge_driver_processes(std::vector<DriverProcess>& into,
                            const std::vector<DriverProcess>& more) {
    for (const DriverProcess& process : more) {
        auto same_pid = [&](const DriverProcess& p) { return p.pid == process.pid; };
        auto existing = std::find_if(into.begin(), into.end(), same_pid);
        if (existing == into.end()) {
            into.push_back(process);
        } else if (process.memory_bytes &&
                   (!existing->memory_bytes || *existing->memory_bytes < *process.memory_bytes)) {
            existing->memory_bytes = process.memory_bytes;
        }
    }
}

}  // namespace gpukill::nvml
