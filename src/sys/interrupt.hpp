// Ctrl-C (SIGINT), SIGTERM and SIGHUP caught for the span of an action, so that a process
// that has started signalling targets can still write down what it sent before it exits:
// a service manager stopping it (SIGTERM) and a terminal that went away (SIGHUP) end it
// the way Ctrl-C does. While an InterruptCatcher lives, the three signals set a flag
// instead of ending the process, and interrupt blocking system calls (no SA_RESTART:
// poll() returns EINTR).
#pragma once

#include <signal.h>

namespace gpukill {

class InterruptCatcher {
  public:
    InterruptCatcher();   // installs the handlers
    ~InterruptCatcher();  // restores the previous ones
    InterruptCatcher(const InterruptCatcher&) = delete;
    InterruptCatcher& operator=(const InterruptCatcher&) = delete;

    // Whether SIGINT, SIGTERM or SIGHUP arrived since construction; which one, or 0.
    static bool caught();
    static int signal_caught();

    // Waits until `fd` is readable (or at its end, or in error) or one of the three
    // signals arrives, whichever is first; true when `fd` is ready. No window in which a
    // signal arriving just before the wait is missed: the signals are blocked while
    // caught() is checked, and ppoll() unblocks them atomically as it starts waiting.
    // For a server reading its input between actions (MCP over stdio).
    static bool wait_readable(int fd);

  private:
    struct sigaction previous_int_ {};
    struct sigaction previous_term_ {};
    struct sigaction previous_hup_ {};
};

}  // namespace gpukill
