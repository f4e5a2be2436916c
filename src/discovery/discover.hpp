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

}  // namespace gpukill
