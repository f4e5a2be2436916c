// Where the host's trees are. Overridable (as node_exporter does) so the agent
// can run in a container with the host's /proc, /sys, /dev and /run mounted elsewhere.
#pragma once

#include <string>

namespace gpukill {

struct HostRoots {
    std::string procfs = "/proc";
    std::string sysfs = "/sys";
    std::string devfs = "/dev";
    // The host's run directory: where containerd and CRI-O keep their containers'
    // bundles (host/cri_bundle.hpp), read for images and pods.
    std::string rundir = "/run";
};

}  // namespace gpukill
