#pragma once
// `gpusim run --connect HOST:PORT`: TCP connections a workload opens before it is ready
// and holds for its life, so tests see a GPU process talking to a peer (for example a
// local listener on a mining-pool port) in /proc/PID/net/tcp and its fd table.

#include <string>
#include <vector>

#include "state/error.hpp"

namespace gpusim {

// Connects to each numeric "IPv4:PORT" or "[IPv6]:PORT" (no name lookups: a test
// must not depend on DNS) and keeps the sockets open until the process exits; forked
// workers inherit them. Errors (bad endpoint → usage, refused → failure) name the
// endpoint; sockets opened before a failure are closed.
Result<void> hold_connections(const std::vector<std::string>& endpoints);

}  // namespace gpusim
