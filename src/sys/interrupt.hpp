// Ctrl-C (SIGINT) and SIGTERM caught for the span of an action, so that a process that
// has started signalling targets can still write down what it sent before it exits.
// While an InterruptCatcher lives, the two signals set a flag instead of ending the
// process, and interrupt blocking system calls (no SA_RESTART: poll() returns EINTR).
#pragma once

#include <signal.h>

namespace gpukill {

class InterruptCatcher {
  public:
    InterruptCatcher();   // installs the handlers
    ~InterruptCatcher();  // restores the previous ones
    InterruptCatcher(const InterruptCatcher&) = delete;
    InterruptCatcher& operator=(const InterruptCatcher&) = delete;

    // Whether SIGINT or SIGTERM arrived since construction; which one, or 0.
    static bool caught();
    static int signal_caught();

  private:
    struct sigaction previous_int_ {};
    struct sigaction previous_term_ {};
};

}  // namespace gpukill
