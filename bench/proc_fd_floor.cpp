// gpukill_proc_fd_floor PREFIX [PROCFS]
//
// The floor as a program of its own, to time against gpukill and fuser as processes:
// walks PROCFS/*/fd (default /proc) and prints the PIDs holding a link that starts with
// PREFIX on one line, then one line of counts. Nothing else, so its start-up is the
// least a process can cost (no C++ libraries beyond the standard one).
#include <cstdio>
#include <string>

#include "proc_fd_walk.hpp"

int main(int argc, char** argv) {
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: %s PREFIX [PROCFS]\n", argv[0]);
        return 3;
    }
    const std::string procfs = argc == 3 ? argv[2] : "/proc";
    const auto result = gpukill::bench::walk_proc_fds(procfs, argv[1]);
    for (pid_t pid : result.holder_pids) std::printf("%d ", static_cast<int>(pid));
    std::printf("\nprocesses=%zu links=%zu prefix_links=%zu\n", result.processes, result.links_read,
                result.prefix_links);
    return 0;
}
