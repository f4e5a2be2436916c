// Takes one snapshot of the host: the effectful end of the discovery pipeline.
// Backends are opened by the caller once and reused (watch mode samples often).
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "discovery/drm_client_usage.hpp"
#include "host/holder_tracker.hpp"
#include "host/process_info_cache.hpp"
#include "model/host_roots.hpp"
#include "model/snapshot.hpp"

namespace gpukill {

// What discovery keeps between the snapshots of one session (`list --watch`, guard
// run): the previous DRM client samples that per-process utilisation is measured
// against, and from the second snapshot on the event-driven holder tracker
// (host/holder_tracker.hpp), so a frame rescans only the processes the kernel named
// instead of sweeping /proc, and the details of the GPU processes, read again only where
// an event or the tracker's full sweep says (host/process_info_cache.hpp); without the
// privilege the tracker needs, every frame sweeps and reads every detail.
struct DiscoveryState {
    DrmUsageTracker drm_usage;
    std::size_t snapshots = 0;
    std::unique_ptr<HolderTracker> holders;
    ProcessInfoCache process_infos;
    std::optional<std::string> holders_untracked;  // why there is no tracker
};

// A full sweep every this many tracked snapshots, and no sooner than this many seconds
// after the last: the safety net for holds no event reports, and the check of the
// tracked set. The time floor keeps snapshots taken on demand (the agent answering
// local lists) from sweeping every process every 30 requests.
inline constexpr std::size_t kTrackedSnapshotsPerFullSweep = 30;
inline constexpr std::chrono::seconds kMinTimeBetweenSafetySweeps{30};

// Without a state (one-shot commands) DRM per-process utilisation is unknown: it needs
// two samples. Memory is known either way. This process's own device files (NVML's,
// opened to list) are left out, unless `own_holds`: a long-lived process answering
// another's listing (the agent) is to it an observer like any other.
Snapshot discover(const HostRoots& roots, const std::vector<std::unique_ptr<Backend>>& backends,
                  DiscoveryState* state = nullptr, bool own_holds = false);

// The same, with only `pids` swept for device files (a kill of named processes and
// their descendants): the GPUs, the drivers' process lists and those processes' holds.
// Holders outside `pids` are absent, and the visibility counts cover `pids` only.
Snapshot discover_processes(const HostRoots& roots,
                            const std::vector<std::unique_ptr<Backend>>& backends,
                            const std::vector<pid_t>& pids);

// The GPUs and the drivers' process lists only: no /proc sweep, no process details.
// For re-sampling memory quickly (verification); device-file holders are absent.
Snapshot discover_gpus(const std::vector<std::unique_ptr<Backend>>& backends);

}  // namespace gpukill
