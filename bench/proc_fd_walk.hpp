// The floor: the least work any tool must do to find who holds a file by its fd links.
// List procfs, and for every process open its fd directory and readlink every entry.
// Nothing is parsed, classified or allocated per link; a link is only compared with a
// prefix. gpukill's sweep does the same system calls plus classification, so the ratio
// between the two is the cost of everything gpukill adds.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

namespace gpukill::bench {

struct FloorResult {
    std::size_t processes = 0;       // fd directories opened
    std::size_t links_read = 0;      // successful readlinks
    std::size_t prefix_links = 0;    // links starting with the prefix
    std::vector<pid_t> holder_pids;  // processes with at least one such link, ascending
};

// Walks procfs/*/fd with opendir/readdir and readlinkat. Processes that vanish or are
// unreadable are skipped, as every tool must.
FloorResult walk_proc_fds(const std::string& procfs, const std::string& prefix);

}  // namespace gpukill::bench
