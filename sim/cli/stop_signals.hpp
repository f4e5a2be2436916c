#pragma once
// The workload's signal behaviour: real handlers (visible as SigCgt/SigIgn in
// /proc/PID/status, as for a real trainer) and a sleep that burns no CPU.

#include <signal.h>

namespace gpusim {

class StopSignals {
  public:
    // Blocks SIGTERM, SIGINT and SIGCHLD until wait_for_stop(), so a signal that arrives
    // during set-up is delivered then instead of being lost or cutting set-up short.
    StopSignals();

    // SIGTERM: ignored or "stop"; SIGINT: "stop"; SIGCHLD: wakes the sleeper to reap workers.
    // Forked workers inherit all of it.
    void install(bool ignore_term);

    // Sleeps in sigsuspend until a stop signal; reaps exited children when `reap`.
    void wait_for_stop(bool reap) const;

  private:
    sigset_t wait_mask_{};
};

// Sleeps for `seconds` (fractions allowed) regardless of signals.
void linger(double seconds);

}  // namespace gpusim
