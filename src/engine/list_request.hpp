// `list` as a request: which GPUs and which of their holders to show. The whole host is
// always read (GPU indexes are the host's, ordered by PCI address across vendors) and,
// when asked, recorded in the usage history; the answer is then narrowed to the vendor,
// the GPU and the processes the match selectors name (engine/list.hpp).
#pragma once

#include <optional>
#include <string>

#include "engine/selectors.hpp"
#include "model/snapshot.hpp"

namespace gpukill::engine {

struct ListRequest : MatchSelectors {
    std::string vendor = "all";  // nvidia, amd, intel or all
    // Not a field of the request's table: the door decides (list and watch record every
    // listing; a monitor polling every second records at the history's own interval).
    bool record_history = false;
};

struct ListOutcome {
    Snapshot snapshot;  // narrowed as the request asked
    // The history's problem, once per Engine ("usage history not recorded: ...").
    std::optional<std::string> history_warning;
};

}  // namespace gpukill::engine
