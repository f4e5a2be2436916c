// What `guard test` and `guard run` both load before evaluating: the policy file and the
// reclaim engine's protected list. Problems that stop the command are printed here
// ("gpukill: ...") and come back as the exit code. The saved warnings and the usage
// history are the engine's (engine/guard_inputs.hpp).
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

}  // namespace gpukill::cli
