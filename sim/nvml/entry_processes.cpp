// NVML entry points: the running-process lists.
//
// The compute list holds each allocating process (host pid) that is still running with the
// memory it allocated. An allocation whose allocating process died is not listed even while
// forked workers keep its memory, exactly as the driver behaves: that gap is what gpukill's fd
// sweep exists to close. Graphics and MPS lists are always empty.

#include <map>
#include <vector>

#include "nvml/answers.hpp"
#include "nvml/driver_session.hpp"
#include "state/usage.hpp"

using gpusim::nvml::DeviceContext;
using gpusim::nvml::DriverSession;

namespace {

enum class ProcessList { compute, graphics, mps };

struct Listed {
    unsigned int pid;
    unsigned long long bytes;
};

nvmlReturn_t collect(const DeviceContext& device, ProcessList which, std::vector<Listed>& out) {
    if (const nvmlReturn_t status =
            gpusim::nvml::metric_status(device.gpu, device.gpu.processes_failure);
        status != NVML_SUCCESS) {
        return status;
    }
    if (which != ProcessList::compute) return NVML_SUCCESS;
    auto usage = gpusim::survey_gpu_collecting(device.driver.root, device.index);
    if (!usage) return NVML_ERROR_UNKNOWN;
    std::map<int, unsigned long long> by_pid;  // one entry per process, in pid order
    for (const gpusim::AllocationState& allocation : usage->allocations) {
        if (allocation.owner_running) by_pid[allocation.record.pid] += allocation.record.bytes;
    }
    for (const auto& [pid, bytes] : by_pid) {
        out.push_back(Listed{static_cast<unsigned int>(pid),
                             device.gpu.memory_not_available ? NVML_VALUE_NOT_AVAILABLE : bytes});
    }
    return NVML_SUCCESS;
}

nvmlProcessInfo_v1_t to_entry(const Listed& listed, nvmlProcessInfo_v1_t* /*tag*/) {
    nvmlProcessInfo_v1_t entry{};
    entry.pid = listed.pid;
    entry.usedGpuMemory = listed.bytes;
    return entry;
}

nvmlProcessInfo_v2_t to_entry(const Listed& listed, nvmlProcessInfo_v2_t* /*tag*/) {
    nvmlProcessInfo_v2_t entry{};
    entry.pid = listed.pid;
    entry.usedGpuMemory = listed.bytes;
    entry.gpuInstanceId = NVML_INSTANCE_ID_NOT_AVAILABLE;  // no MIG instances simulated
    entry.computeInstanceId = NVML_INSTANCE_ID_NOT_AVAILABLE;
    return entry;
}

// NVML's sizing handshake: *count is the capacity in. No processes: success, *count = 0 (even
// with no buffer). Too small or no buffer: *count = the number needed, INSUFFICIENT_SIZE.
template <class Entry>
nvmlReturn_t list(nvmlDevice_t device, unsigned int* count, Entry* infos, ProcessList which) {
    return DriverSession::instance().with_device(device, [&](const DeviceContext& context) {
        if (count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
        std::vector<Listed> listed;
        if (const nvmlReturn_t status = collect(context, which, listed); status != NVML_SUCCESS) {
            return status;
        }
        const auto needed = static_cast<unsigned int>(listed.size());
        if (needed == 0) {
            *count = 0;
            return NVML_SUCCESS;
        }
        if (infos == nullptr || *count < needed) {
            *count = needed;
            return NVML_ERROR_INSUFFICIENT_SIZE;
        }
        for (unsigned int i = 0; i < needed; ++i) infos[i] = to_entry(listed[i], infos);
        *count = needed;
        return NVML_SUCCESS;
    });
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int* infoCount,
                                                  nvmlProcessInfo_v1_t* infos) {
    return list(device, infoCount, infos, ProcessList::compute);
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int* infoCount,
                                                     nvmlProcessInfo_v2_t* infos) {
    return list(device, infoCount, infos, ProcessList::compute);
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t device, unsigned int* infoCount,
                                                   nvmlProcessInfo_v1_t* infos) {
    return list(device, infoCount, infos, ProcessList::graphics);
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2(nvmlDevice_t device, unsigned int* infoCount,
                                                      nvmlProcessInfo_v2_t* infos) {
    return list(device, infoCount, infos, ProcessList::graphics);
}

nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses(nvmlDevice_t device, unsigned int* infoCount,
                                                     nvmlProcessInfo_v1_t* infos) {
    return list(device, infoCount, infos, ProcessList::mps);
}

nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v2(nvmlDevice_t device,
                                                        unsigned int* infoCount,
                                                        nvmlProcessInfo_v2_t* infos) {
    return list(device, infoCount, infos, ProcessList::mps);
}

#ifndef GPUSIM_LEGACY_DRIVER
// R510+ drivers write the same 24-byte entries for _v3 as for _v2.
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int* infoCount,
                                                     nvmlProcessInfo_v2_t* infos) {
    return list(device, infoCount, infos, ProcessList::compute);
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int* infoCount,
                                                      nvmlProcessInfo_v2_t* infos) {
    return list(device, infoCount, infos, ProcessList::graphics);
}

nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v3(nvmlDevice_t device,
                                                        unsigned int* infoCount,
                                                        nvmlProcessInfo_v2_t* infos) {
    return list(device, infoCount, infos, ProcessList::mps);
}
#endif

}  // extern "C"
