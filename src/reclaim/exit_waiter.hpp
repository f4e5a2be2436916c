// Waiting for many processes to exit at once. A pidfd becomes readable when its process
// exits, so one poll() over every pidfd waits for all of them together: 200 targets
// with a 2 s timeout take 2 s, not 200 x 2 s. Internal to src/reclaim.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "model/host_roots.hpp"
#include "reclaim/target_binding.hpp"

namespace gpukill::reclaim {

using Clock = std::chrono::steady_clock;

struct WaitEntry {
    const BoundProcess* process = nullptr;
    std::optional<Clock::time_point> exited_at;  // set once its exit is seen
};

// Called about every 200 ms: entries still running, and seconds left until `deadline`.
using WaitProgress = std::function<void(std::size_t left, double seconds_left)>;

// Returns when every entry has exited, at `deadline`, or as soon as `stop` (when set)
// answers true, whichever is first; `stop` is asked after every wake-up, and a signal
// handler's EINTR wakes the wait at once. Entries
// with a pidfd are waited on by poll(); entries without one (the kill() fallback) have
// no event to wait on, so /proc is checked for them every 20 ms (the only periodic
// check, and only on kernels without pidfds or when descriptors ran out). A zombie
// counts as exited: it holds no file descriptors, so no GPU either.
void wait_for_exits(std::vector<WaitEntry>& entries, Clock::time_point deadline,
                    const HostRoots& roots, const WaitProgress& progress,
                    const std::function<bool()>& stop = {});

}  // namespace gpukill::reclaim
