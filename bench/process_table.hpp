// The process table a pattern selector searches on a busy GPU host, as values: names
// and command lines shaped like those of a training node (kernel threads, services,
// shells, container shims, training ranks and their data-loader workers, notebooks, an
// inference server, a JVM whose class path runs past the 4,096 bytes a selector reads,
// and one miner), generated from a seed rather than read from /proc, so that every run
// and every machine searches the same texts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/process.hpp"

namespace gpukill::bench {

std::vector<ProcessInfo> gpu_host_process_table(std::size_t count, std::uint64_t seed = 1);

}  // namespace gpukill::bench
