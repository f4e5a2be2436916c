// The GPU device nodes under a device root and what each one is: the identity of the
// file behind it, so an fd can be matched by what it refers to rather than by the text
// of its link. That is what makes a relocated --devfs work: in a container the host's
// /dev is mounted at, say, /host/dev, while every holder's fd links still say
// /dev/nvidia0 (the path in the holder's own mount namespace).
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "model/device_node.hpp"

namespace gpukill {

// A character or block device is its device number (two nodes for one device, the
// host's and a container's, are the same device); any other file (the simulator's
// nodes) is its inode.
struct FileIdentity {
    dev_t device = 0;
    ino_t inode = 0;
    friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
};

FileIdentity identity_of(const struct stat& info);

struct DevfsNode {
    std::string path;  // absolute, under the device root
    DeviceNode node;
    std::optional<FileIdentity> identity;  // empty when it could not be stat'ed
    // The node's own file (its filesystem's device and its inode, never the device it
    // stands for): what a line of /proc/PID/maps names. Empty when it could not be stat'ed.
    std::optional<FileIdentity> file;
};

// The directories under a device root that GPU nodes live in: its top level, dri/,
// accel/, nvidia-caps/ (as suffixes of the root).
inline constexpr const char* kGpuNodeDirectories[] = {"", "/dri", "/accel", "/nvidia-caps"};

// Every node classify_device_path knows under `devfs` (kGpuNodeDirectories), in
// directory order. An unreadable root gives none.
std::vector<DevfsNode> list_gpu_device_nodes(const std::string& devfs);

}  // namespace gpukill
