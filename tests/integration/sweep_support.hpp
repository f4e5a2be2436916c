// Sweep results as text, for tests that compare two ways of finding holders: PID, start
// time and the nodes held, one holder a line.
#pragma once

#include <fmt/format.h>

#include <string>

#include "host/fd_sweep.hpp"

namespace gpukill::testing {

inline std::string described(const SweepResult& sweep) {
    std::string text;
    for (const DeviceHolder& holder : sweep.holders) {
        text += fmt::format("{} {} :", holder.pid, holder.start_time_ticks.value_or(0));
        for (const DeviceNode& node : holder.nodes) text += " " + node.relative_path;
        text += "\n";
    }
    return text;
}

}  // namespace gpukill::testing
