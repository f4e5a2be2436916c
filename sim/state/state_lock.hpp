#pragma once
// DIR/gpusim/state.lock (flock): serialises everything that changes the simulator's state.
// Writers (run, leak, reset) wait for it; readers that tidy up (the NVML library deleting dead
// allocation records) only take it when it is free at once, so a query never waits.

#include <optional>

#include "state/error.hpp"
#include "state/files.hpp"
#include "state/root.hpp"

namespace gpusim {

// Held for the lifetime of the object. The descriptor is close-on-exec and must be released
// before forking workers, or they would keep the lock.
class StateLock {
  public:
    static Result<StateLock> acquire(const Root& root);
    // The lock when nobody else holds it now; nullopt when busy or when it cannot be opened.
    static std::optional<StateLock> try_acquire(const Root& root);

  private:
    explicit StateLock(Fd fd) : fd_(std::move(fd)) {}
    Fd fd_;
};

}  // namespace gpusim
