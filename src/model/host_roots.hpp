// Where the host's trees are. Overridable (as node_exporter does) so the agent
// can run in a container with the host's /proc, /sys and /dev mounted elsewhere.
#pragma once

#include <string>

namespace gpukill {

struct HostRoots {
    std::string procfs = "/proc";
    std::string sysfs = "/sys";
    std::string devfs = "/dev";
};

}  // namespace gpukill
