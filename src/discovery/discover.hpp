// Takes one snapshot of the host: the effectful end of the discovery pipeline.
// Backends are opened by the caller once and reused (watch mode samples often).
#pragma once

#include <memory>
#include <vector>

#include "backends/backend.hpp"
#include "host/roots.hpp"
#include "model/snapshot.hpp"

namespace gpukill {

Snapshot discover(const HostRoots& roots, const std::vector<std::unique_ptr<Backend>>& backends);

// The GPUs and the drivers' process lists only: no /proc sweep, no process details.
// For re-sampling memory quickly (verification); device-file holders are absent.
Snapshot discover_gpus(const std::vector<std::unique_ptr<Backend>>& backends);

}  // namespace gpukill
