// Checks, before forking, that the host lets this user start the population: the
// process limit (ulimit -u), kernel.pid_max, the pids cgroup and the fd limit. A
// shortfall is reported with the limit that causes it instead of a fork failing halfway.
#pragma once

#include <cstddef>
#include <string>

namespace gpukill::bench {

// Empty when `processes` more processes with `fds_each` fds each fit; otherwise one
// line per limit that is too low, saying how to raise it.
std::string capacity_problems(std::size_t processes, std::size_t fds_each);

}  // namespace gpukill::bench
