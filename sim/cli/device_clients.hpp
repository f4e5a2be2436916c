#pragma once
// Who has a simulated GPU open: every process (other than this one) with a descriptor on
// DIR/dev/nvidia<minor> or a mapping of it, found in /proc/PID/fd and /proc/PID/maps as the
// real driver knows its clients by their open files (a mapping keeps its file open).
// `nvidia-smi -r` refuses while any exists.

#include <filesystem>
#include <vector>

namespace gpusim {

// PIDs in ascending order. Processes whose descriptors cannot be read (exited meanwhile, or
// another user's without privilege) are not seen; the real tool is run as root.
std::vector<int> device_clients(const std::filesystem::path& device_node);

}  // namespace gpusim
