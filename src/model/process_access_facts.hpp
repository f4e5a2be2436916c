// What decides why this process cannot read other processes' open files (who it is,
// its capabilities, its PID namespace, what the refused processes hold): plain data,
// read and put into words by host/process_access.hpp.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpukill {

struct ProcessAccessFacts {
    uid_t euid = 0;
    std::optional<std::uint64_t> effective_caps;  // this process's CapEff
    // This process runs in a PID namespace below another (NSpid names several PIDs) and
    // reads its own /proc: processes outside that namespace are not listed at all.
    bool own_pid_namespace = false;
    struct Denied {
        pid_t pid = 0;
        std::string comm;
        std::optional<std::uint64_t> permitted_caps;  // its CapPrm
    };
    std::vector<Denied> denied;  // a few of the processes whose open files were refused
};

}  // namespace gpukill
