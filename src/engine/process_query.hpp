// Which GPU holders a set of match selectors names, without planning anything: the
// read-only side of kill's selectors (`list --image`, the MCP list_processes tool), so
// "which processes would --gpu 1 --not-image X take" has the same answer as the plan.
// Pure over a snapshot; records nothing.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/result.hpp"
#include "model/snapshot.hpp"
#include "reclaim/select.hpp"

namespace gpukill::engine {

struct ProcessQuery {
    reclaim::Selectors selectors;    // the match selectors (pid_arguments are ignored)
    std::optional<std::string> gpu;  // an index, UUID or PCI bus id
};

// The snapshot with only the processes every selector given matches (all of them when
// none is). Errors: invalid_input (a bad pattern, a short container id), not_found (no
// such GPU).
Result<Snapshot> select_processes(const Snapshot& snapshot, const ProcessQuery& query);

// The global index of the one GPU `selector` (index, UUID or PCI bus id) names.
// Errors: not_found.
Result<unsigned> resolve_gpu(const Snapshot& snapshot, std::string_view selector);

}  // namespace gpukill::engine
