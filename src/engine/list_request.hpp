// `list` as a request: which GPUs and which of their holders to show. The whole host is
// always read (GPU indexes are the host's, ordered by PCI address across vendors) and,
// when asked, recorded in the usage history; the answer is then narrowed to the vendor,
// the GPU and the processes the match selectors name (engine/list.hpp).
#pragma once

#include <sys/types.h>

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

// Who read the host for a listing: this process, sweeping /proc itself, or the host's
// running agent over its local channel (engine/local_channel.hpp).
enum class ListSource { sweep, agent };

// "sweep", "agent": the `source` of `list --json`.
inline const char* to_string(ListSource source) {
    return source == ListSource::agent ? "agent" : "sweep";
}

struct ListOutcome {
    Snapshot snapshot;  // narrowed as the request asked
    // The history's problem, once per Engine ("usage history not recorded: ...").
    std::optional<std::string> history_warning;
    ListSource source = ListSource::sweep;
    pid_t agent_pid = 0;  // the agent that answered, when source is agent
    // Why the agent that serves this host did not answer and the host was swept instead
    // (one line), for a door that says so. Empty when it answered, when none runs, and
    // when this user may not ask it (the channel is root's).
    std::optional<std::string> agent_note;
};

}  // namespace gpukill::engine
