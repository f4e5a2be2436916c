#pragma once
// A real process that uses a simulated GPU the way a CUDA program does: it opens the control,
// UVM and GPU device nodes, allocates memory, forks DataLoader-style workers that inherit the
// descriptors, and then sleeps until a signal ends it.

#include <cstdint>

#include "cli/ready_channel.hpp"
#include "state/root.hpp"

namespace gpusim {

struct WorkloadSpec {
    Root root;
    unsigned gpu = 0;
    std::uint64_t bytes = 0;
    unsigned util_percent = 0;
    unsigned workers = 0;
    bool ignore_term = false;       // SIGTERM is ignored (SIG_IGN), in workers too
    double term_delay_seconds = 0;  // SIGTERM/SIGINT end the process this much later
};

// Runs until SIGTERM/SIGINT (or forever with ignore_term, until SIGKILL). Returns the exit
// code of the parent; workers never return from it.
int run_workload(const WorkloadSpec& spec, ReadyChannel& channel);

}  // namespace gpusim
