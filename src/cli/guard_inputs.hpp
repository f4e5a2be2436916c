// What `guard test` and `guard run` both gather before evaluating: the policy file, the
// reclaim engine's protected list, the saved warnings and the usage history. Problems
// that stop the command are printed here ("gpukill: ...") and come back as the exit
// code; problems that only limit the evaluation come back as notes.
#pragma once

#include <expected>
#include <optional>
#include <string>
#include <vector>

#include "cli/global_options.hpp"
#include "guard/evaluate.hpp"
#include "guard/history.hpp"
#include "guard/policy.hpp"
#include "reclaim/select.hpp"

namespace gpukill::cli {

struct PolicyFile {
    std::string path;
    guard::Policy policy;
};

// --policy FILE, else CONFIG_DIR/guard.yaml. A malformed file exits 3, an unreadable or
// missing one 1.
std::expected<PolicyFile, int> load_guard_policy(const GlobalOptions& global,
                                                 const std::optional<std::string>& policy_flag);

// CONFIG_DIR/protected.yaml over the built-in list (exit 3 malformed, 1 unreadable).
std::expected<reclaim::ProtectedList, int> load_reclaim_protected(const GlobalOptions& global);

// The usage store's samples of [since, until) as history; empty with a note when
// there is no store yet or it cannot be read.
guard::History history_from_store(const std::string& state_dir, std::int64_t since_unix_ms,
                                  std::int64_t until_unix_ms, std::vector<std::string>& notes);

// STATE_DIR/guard-state.json; an unreadable or foreign file is a note and an empty state.
guard::GuardState saved_state(const std::string& state_dir, std::vector<std::string>& notes);

// Processes the rules judge: details read, holding a GPU.
std::size_t processes_judged(const Snapshot& snapshot);

}  // namespace gpukill::cli
