// GPU device nodes and the processes that hold them open.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpukill {

enum class DeviceNodeKind {
    nvidia_gpu,   // /dev/nvidiaN: one GPU, N is the NVIDIA minor number
    nvidia_ctl,   // /dev/nvidiactl: driver control node, not tied to one GPU
    nvidia_uvm,   // /dev/nvidia-uvm, /dev/nvidia-uvm-tools
    nvidia_caps,  // /dev/nvidia-caps/* (MIG capabilities)
    dri_card,     // /dev/dri/cardN
    dri_render,   // /dev/dri/renderDN
    kfd,          // /dev/kfd: AMD compute, one node for every AMD GPU (says not which)
    accel,        // /dev/accel/accelN
};

const char* to_string(DeviceNodeKind kind);

// How a process holds a device node, in fuser's terms: through an open descriptor (its
// f and F) and/or through a mapping of the node in its address space (its m). A mapping
// alone holds the device as surely as a descriptor: the driver's file stays referenced,
// and its client alive, until the last mapping goes; fork copies mappings to children.
struct NodeAccess {
    bool descriptor = false;
    bool mapping = false;
    friend bool operator==(const NodeAccess&, const NodeAccess&) = default;
};

// A device path relative to the device root, e.g. "nvidia0", "dri/renderD128".
struct DeviceNode {
    DeviceNodeKind kind = DeviceNodeKind::nvidia_ctl;
    std::string relative_path;
    std::optional<unsigned> nvidia_minor;   // for nvidia_gpu
    std::optional<unsigned> dri_minor;      // for dri_card / dri_render: the N in the name
    std::optional<std::string> pci_bus_id;  // dri nodes: the PCI parent from sysfs, normalised
    // How its holder holds it (the fd sweep sets it); neither when unknown: a path
    // classified alone, or a snapshot document from before access was recorded.
    NodeAccess access;

    friend bool operator==(const DeviceNode&, const DeviceNode&) = default;
};

// A descriptor a holder has open on a DRM node (card or render): /proc/PID/fdinfo/FD
// holds the driver's usage stats for that client.
struct DrmFd {
    int fd = -1;
    std::size_t node_index = 0;  // into DeviceHolder::nodes
    friend bool operator==(const DrmFd&, const DrmFd&) = default;
};

// One process and every GPU device node it holds, by descriptor or by mapping (each node
// once, however many fds and mappings).
struct DeviceHolder {
    pid_t pid = 0;
    std::vector<DeviceNode> nodes;
    // Read through the same /proc/PID directory as the fds, so it is the holder's own:
    // details read later under the same PID must match it, or the PID was reused.
    std::optional<std::uint64_t> start_time_ticks;
    // Every fd on a DRM node, dup'd ones included (fdinfo's client id tells them apart).
    std::vector<DrmFd> drm_fds;
};

// Classify the target of an fd symlink as a GPU device node under devfs_root
// ("/dev" or a relocated root such as "/tmp/sim/dev"; trailing slashes ignored; compared
// as text, so pass it as the kernel prints paths: absolute and resolved). Recognised,
// exactly, relative to the root (N canonical decimal, no leading zeros):
//   nvidiaN -> nvidia_gpu (nvidia_minor = N)     nvidiactl -> nvidia_ctl
//   nvidia-modeset -> nvidia_ctl: a driver-wide display node, tied to no one GPU, but a
//                     process holding it holds the driver, as `fuser /dev/nvidia*` shows
//   nvidia-uvm, nvidia-uvm-tools -> nvidia_uvm
//   nvidia-caps/nvidia-capN, nvidia-caps-imex-channels/channelN -> nvidia_caps
//   dri/cardN -> dri_card, dri/renderDN -> dri_render (dri_minor = N)
//   kfd -> kfd                                   accel/accelN -> accel
// A target ending in " (deleted)" is a node unlinked while open (a container's /dev gone,
// udev re-creating nodes): the process still holds the device, so it is classified like
// the live path. Not GPU nodes: nvidia-nvswitch*, dri/controlD*, anything outside the
// root or not exactly one of the names above (nvidia, nvidia0x, nvidia01, dri/card).
// Pure: pci_bus_id is left empty (the fd sweep fills it from sysfs).
std::optional<DeviceNode> classify_device_path(std::string_view link_target,
                                               std::string_view devfs_root);

}  // namespace gpukill
