// Reads the DRM client usage stats of the holders the fd sweep found: /proc/PID/fdinfo/FD
// for exactly the fds that point at a DRM card or render node, so the cost is one small
// read per DRM fd and no second walk of /proc.
//
// A process's fdinfo can be unreadable while its fd links were readable (an LSM, or a
// process that made itself undumpable between the sweep and this read, when gpukill is
// not root): its usage is unknown, which is not an error. It is counted, so the snapshot
// can say whose usage it could not see.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "host/drm_fdinfo_parse.hpp"
#include "model/device_node.hpp"
#include "model/host_roots.hpp"

namespace gpukill {

// One fd's fdinfo, as the driver described its client at one moment.
struct DrmClientSample {
    pid_t pid = 0;
    int fd = -1;
    std::optional<std::string> node_pci_bus_id;  // the node's PCI parent (sysfs), if known
    std::int64_t monotonic_ns = 0;               // CLOCK_MONOTONIC right after the read
    DrmFdinfo client;
};

struct DrmFdinfoReading {
    std::vector<DrmClientSample> samples;  // DRM clients only, in holder then fd order
    std::vector<pid_t> denied;             // holders whose fdinfo we were not allowed to read
};

// Holders whose PID now names a different process (start time changed) are skipped, as
// are fds closed since the sweep and fds whose fdinfo carries no DRM usage stats.
DrmFdinfoReading read_drm_fdinfo(const HostRoots& roots, const std::vector<DeviceHolder>& holders);

}  // namespace gpukill
