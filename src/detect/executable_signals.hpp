// Signals from where a process's program lives: deleted after start (exe_deleted: a
// dropper that removes its payload; also, innocently, a binary upgraded by the package
// manager while it ran) and run from a world-writable scratch directory
// (exe_in_temp_dir: /tmp, /dev/shm, /var/tmp by default). Pure.
#pragma once

#include <vector>

#include "detect/evidence.hpp"
#include "detect/rogue_config.hpp"
#include "model/process.hpp"

namespace gpukill::detect {

// Nothing when the executable is unknown (unreadable without privilege).
std::vector<Evidence> judge_executable(const ProcessInfo& info, const RogueConfig& config);

}  // namespace gpukill::detect
