// What the guard reads besides the policy before evaluating: the saved warnings and the
// usage history. Problems that only limit the evaluation come back as notes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "guard/guard_state.hpp"
#include "guard/history.hpp"
#include "model/snapshot.hpp"

namespace gpukill::engine {

// The usage store's samples of [since, until) as history; empty with a note when
// there is no store yet or it cannot be read.
guard::History history_from_store(const std::string& state_dir, std::int64_t since_unix_ms,
                                  std::int64_t until_unix_ms, std::vector<std::string>& notes);

// STATE_DIR/guard-state.json; an unreadable or foreign file is a note and an empty state.
guard::GuardState saved_state(const std::string& state_dir, std::vector<std::string>& notes);

// Processes the rules judge: details read, holding a GPU.
std::size_t processes_judged(const Snapshot& snapshot);

}  // namespace gpukill::engine
