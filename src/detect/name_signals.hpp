// Signals from a process's names: a known miner program (miner_name), a name it
// claims but its executable is not (masquerade), and names that differ from its
// executable's (name_mismatch, weak: scripts, symlinks and setproctitle do that
// honestly). Pure over the /proc details already read.
#pragma once

#include <vector>

#include "detect/evidence.hpp"
#include "detect/rogue_config.hpp"
#include "model/process.hpp"

namespace gpukill::detect {

// Kernel threads raise nothing. Without a readable executable (another user's process,
// unprivileged) only miner names and a bracketed argv[0] can be judged.
std::vector<Evidence> judge_names(const ProcessInfo& info, const RogueConfig& config);

}  // namespace gpukill::detect
