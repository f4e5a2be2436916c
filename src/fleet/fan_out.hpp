// Running one task per host on a bounded pool of threads (--fanout N), with the
// controls an operator expects from pdsh: progress as hosts finish, Ctrl-C (or
// --fail-fast after a failure) stops starting hosts while the running ones finish, and
// every host gets a reply: the ones never started are `not_run`, with why.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "fleet/transport.hpp"

namespace gpukill::fleet {

struct FanOutControls {
    std::size_t fanout = 32;  // at most this many hosts at once (at least 1)
    bool fail_fast = false;   // no new host after one fails or is unreachable
    // Called (from a worker, serialised) after each host: done so far, total.
    std::function<void(std::size_t done, std::size_t total)> progress;
    // True once the operator asked to stop (Ctrl-C).
    std::function<bool()> interrupted;
};

// task(i) for every i < count; the replies in index order.
std::vector<HostReply> fan_out(std::size_t count, const std::function<HostReply(std::size_t)>& task,
                               const FanOutControls& controls);

}  // namespace gpukill::fleet
