// Helpers for the rogue-detection tests: processes described as /proc would show them,
// and lookups into a list of evidence.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "detect/evidence.hpp"
#include "model/process.hpp"

namespace gpukill::rogue_test {

using detect::Evidence;
using detect::Signal;

// A user process: comm, executable and arguments as given.
inline ProcessInfo process(std::string comm, std::optional<std::string> exe,
                           std::vector<std::string> cmdline, pid_t pid = 4242) {
    ProcessInfo info;
    info.pid = pid;
    info.ppid = 1000;
    info.pgid = pid;
    info.sid = 1000;
    info.uid = 1001;
    info.user = "bob";
    info.comm = std::move(comm);
    info.exe = std::move(exe);
    info.cmdline = std::move(cmdline);
    info.start_time_ticks = 123456;
    info.state = 'S';
    return info;
}

inline const Evidence* find(const std::vector<Evidence>& evidence, Signal signal) {
    auto it = std::find_if(evidence.begin(), evidence.end(),
                           [&](const Evidence& e) { return e.signal == signal; });
    return it == evidence.end() ? nullptr : &*it;
}

inline bool has(const std::vector<Evidence>& evidence, Signal signal) {
    return find(evidence, signal) != nullptr;
}

}  // namespace gpukill::rogue_test
