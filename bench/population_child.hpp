// What one forked child of the population does. It runs between fork() and _exit()
// in a copy of the parent, so it uses only async-signal-safe system calls and touches
// no allocator, stdio or C++ library state.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace gpukill::bench {

inline constexpr std::size_t kMaxChildDevices = 8;

// Everything a child needs, prepared by the parent before fork.
struct ChildSpec {
    int release_fd = -1;  // blocks reading this until the parent closes it (EOF) or kills it
    int ready_fd = -1;    // one ChildReport is written here, then the fd is closed
    pid_t pgid = 0;       // 0: found a new group
    const char* data_file = nullptr;             // a regular file every child opens
    const char* directory = nullptr;             // a directory every child holds open
    std::size_t fds = 20;                        // generic fds, counting 0-2 and release_fd
    const char* devices[kMaxChildDevices] = {};  // device files to hold, repeats allowed
    std::size_t device_count = 0;
};

// Written once by each child: step -1 when set up, else the step that failed and errno.
struct ChildReport {
    std::int32_t step = -1;
    std::int32_t error = 0;
};

[[noreturn]] void run_child(const ChildSpec& spec);

// The name of a step in a ChildReport, for error messages.
const char* child_step_name(std::int32_t step);

}  // namespace gpukill::bench
