// Rogue-detection scores for the guard's `kind: rogue` rules, from the same scorer as
// `gpukill audit --rogue` (detect/assessment.hpp) with the same configuration
// (CONFIG_DIR/rogue.yaml or the defaults): its allow lists exempt a process, as they do
// there. Effects at the edge (sockets, usage history, the configuration file); the
// evaluator only sees the numbers. Computed only for policies with a rogue rule.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "guard/evaluate.hpp"
#include "model/host_roots.hpp"
#include "model/snapshot.hpp"

namespace gpukill::engine {

// Problems (a bad rogue.yaml, no usage history) come back as notes; a configuration
// that cannot be loaded gives no scores at all.
std::map<guard::IdentityKey, guard::RogueScore> rogue_scores_for(
    const HostRoots& roots, const std::string& config_dir, const std::string& state_dir,
    const guard::Policy& policy, const Snapshot& snapshot, std::vector<std::string>& notes);

}  // namespace gpukill::engine
