// The monitor's detail and environment views as lines of text (pure), from what the
// engine read about one process (engine/process_details.hpp) and its snapshot entry.
#pragma once

#include <string>
#include <vector>

#include "engine/process_details.hpp"
#include "model/snapshot.hpp"

namespace gpukill::top {

// Identity, command, user, state, container and cgroup, the GPUs it holds and how each
// was seen, its open GPU device files, its parent chain, and the rogue evidence.
// `holder` may be null (it holds no GPU in the snapshot shown).
std::vector<std::string> details_lines(const engine::ProcessDetails& details,
                                       const SnapshotProcess* holder, const std::string& devfs);

std::vector<std::string> environment_lines(const std::vector<std::string>& environment);

}  // namespace gpukill::top
