#include "discovery/drm_usage_attach.hpp"

#include <algorithm>

namespace gpukill {
namespace {

std::optional<std::uint64_t> larger(std::optional<std::uint64_t> a,
                                    std::optional<std::uint64_t> b) {
    if (!a) return b;
    if (!b) return a;
    return std::max(*a, *b);
}

GpuReading* drm_reading_at(std::vector<GpuReading>& readings, const std::string& bus_id) {
    for (GpuReading& reading : readings) {
        if (reading.backend == "drm" && reading.pci_bus_id == bus_id) return &reading;
    }
    return nullptr;
}

}  // namespace

void attach_drm_usage(std::vector<GpuReading>& readings,
                      const std::vector<DrmProcessUsage>& usage) {
    for (const DrmProcessUsage& client : usage) {
        GpuReading* reading = drm_reading_at(readings, client.pci_bus_id);
        if (reading == nullptr) continue;
        // fdinfo is the driver's own account of its clients: a list, even when the
        // backend's compute list (kfd) could not be read (its problem line stays).
        if (!reading->processes) reading->processes.emplace();
        auto& listed = *reading->processes;
        auto same = std::find_if(listed.begin(), listed.end(),
                                 [&](const DriverProcess& p) { return p.pid == client.pid; });
        if (same != listed.end()) {
            same->memory_bytes = larger(same->memory_bytes, client.memory_bytes);
            if (client.utilization_percent) same->utilization_percent = client.utilization_percent;
            continue;
        }
        listed.push_back(DriverProcess{.pid = client.pid,
                                       .memory_bytes = client.memory_bytes,
                                       .kind = DriverProcessKind::graphics,
                                       .utilization_percent = client.utilization_percent});
    }
    for (GpuReading& reading : readings) {
        if (reading.backend != "drm" || !reading.processes) continue;
        std::sort(reading.processes->begin(), reading.processes->end(),
                  [](const DriverProcess& a, const DriverProcess& b) { return a.pid < b.pid; });
    }
}

}  // namespace gpukill
