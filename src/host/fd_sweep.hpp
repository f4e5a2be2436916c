// One sweep of PROCFS/*/fd and PROCFS/*/maps finding every process that holds a GPU
// device node, by an open descriptor or by a mapping alone, as `fuser -v /dev/nvidia*`
// does (its access f/F and m), but for every GPU device family at once.
//
// Cost: one pass (split over one thread per core on a host with many processes), no
// per-process path building beyond a small stack buffer. Per process:
// openat(PROCFS_FD, "PID/fd"), getdents64 until it returns 0 (usually twice), one
// readlinkat per fd relative to that directory fd; then openat("../maps") and read()
// until it returns 0 (procfs gives a page of lines per read: two to four for a small
// process), close. A link, and a maps line's path, is compared with the devfs root's
// bytes before any classification, so sockets, pipes, files, libraries and anonymous
// memory cost one memcmp. A process with no fds and no executable (a kernel thread) has
// no maps read. Only holders pay for more: classification, and for DRM nodes one sysfs
// lookup per node name per sweep (cached).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "model/device_node.hpp"
#include "model/host_roots.hpp"
#include "model/result.hpp"

namespace gpukill {

struct SweepResult {
    std::vector<DeviceHolder> holders;  // sorted by PID
    std::size_t processes_scanned = 0;
    std::size_t processes_denied = 0;      // fds or maps we were not allowed to read
    std::size_t processes_vanished = 0;    // exited between listing and reading
    std::size_t processes_unreadable = 0;  // other failures (EMFILE, ENOMEM): not seen either
    // The first kMaxNamedUnseen PIDs of each kind, to say which (warnings name them).
    std::vector<pid_t> denied_pids;
    std::vector<pid_t> unreadable_pids;
    std::optional<Error> error;  // procfs itself could not be listed: the sweep is empty
};

// Holders of the device nodes under roots.devfs (canonicalised with realpath, as the
// kernel prints resolved paths; used as given if it does not exist). Each holder lists
// each node once, in the order first seen (its fds first, then its mappings), with how
// it holds it (DeviceNode::access: descriptor, mapping or both); DRM nodes carry their
// PCI bus id from roots.sysfs when it resolves. A device node unlinked while open or
// mapped ("... (deleted)") still counts: the process holds the device. A mapping is
// matched as an fd link is: by its path under the root; on a relocated root, a /dev/...
// path by the file mapped (the maps line's device and inode, else
// /proc/PID/map_files), by its text only when neither can say. Every fd on a DRM node
// is kept in drm_fds (for drm_fdinfo_reader.hpp); other fds cost nothing more than
// before. A procfs without maps files (a fixture) shows fds alone.
SweepResult sweep_device_holders(const HostRoots& roots);

// The same for the named processes only (a kill of known PIDs and their descendants):
// work proportional to them, not to the host. A PID that does not exist is not counted.
SweepResult sweep_device_holders_of(const HostRoots& roots, const std::vector<pid_t>& pids);

}  // namespace gpukill
