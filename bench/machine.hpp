// Facts about the machine a benchmark ran on, for its report: the numbers only mean
// something next to the CPU count, the kernel and how busy the shared machine was.
#pragma once

#include <cstddef>
#include <string>

namespace gpukill::bench {

struct Machine {
    std::string date_utc;  // "YYYY-MM-DD HH:MM:SS UTC"
    std::string kernel;    // uname -r
    long cpus = 0;         // online CPUs
};

Machine describe_machine();

// The type of the filesystem holding `path` ("ext4", "tmpfs", ...; the magic number in
// hex when unknown): whether an fsync there costs a disk flush or nothing.
std::string filesystem_type(const std::string& path);

// Processes on the host now (numeric entries of /proc).
std::size_t count_processes();

// The 1, 5 and 15 minute load averages: a hint of how busy the shared machine was.
std::string load_average();

}  // namespace gpukill::bench
