// Ctrl-C, SIGTERM and SIGHUP end the benchmark through the normal return path, so the
// RAII owners of the process population kill and reap every child they started.
//
// The handlers only set a flag and are installed without SA_RESTART: a blocking read,
// waitpid or wait4 returns EINTR, and the code around it checks the flag and throws.
#pragma once

#include <stdexcept>

namespace gpukill::bench {

struct Interrupted : std::runtime_error {
    Interrupted() : std::runtime_error("interrupted") {}
};

void install_interrupt_handlers();

// The handled signal's number, or 0 when none has arrived.
int interrupt_signal();

// Throws Interrupted once a handled signal has arrived.
void throw_if_interrupted();

}  // namespace gpukill::bench
