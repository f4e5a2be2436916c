// Signals from where a process's program lives: deleted after start (exe_deleted: a
// dropper that removes its payload; also, innocently, a binary upgraded by the package
// manager while it ran) and run from a world-writable scratch directory
// (exe_in_temp_dir: /tmp, /dev/shm, /var/tmp by default); and what its bytes carry
// (miner_signature: strings that mining programs carry, read by facts_reader.hpp). Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "detect/evidence.hpp"
#include "detect/rogue_config.hpp"
#include "model/process.hpp"

namespace gpukill::detect {

// Nothing when the executable is unknown (unreadable without privilege).
std::vector<Evidence> judge_executable(const ProcessInfo& info, const RogueConfig& config);

// What reading the executable found: the miner signatures in its first bytes_read bytes
// (all of it unless cut at executable_scan.max_bytes).
struct ExecutableScan {
    std::vector<std::string> signatures;  // in the configured order, each once
    std::uint64_t bytes_read = 0;
    bool cut = false;  // the file is larger than what was read
};

struct ContentVerdict {
    std::optional<Evidence> evidence;  // at least executable_scan.min_signatures found
    std::string note;                  // one line: what was read and found
};

ContentVerdict judge_executable_content(const ExecutableScan& scan, const RogueConfig& config);

}  // namespace gpukill::detect
