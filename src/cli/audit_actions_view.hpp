// Rendering `gpukill audit --actions`: the action log's records (docs/AUDIT.md) as a
// table of time, who, action, target and outcome, or as one JSON document holding the
// records as written.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cli/audit_history_view.hpp"
#include "cli/text_wrap.hpp"
#include "engine/audit_queries.hpp"

namespace gpukill::cli {

struct ActionRow {
    std::string by;       // who ran gpukill: "alice", or "alice (sudo)" for sudo
    std::string action;   // the event: planned, refused, signalled, result, verified, ...
    std::string target;   // "4242 python (bob)", "GPU 0", "3 targets: 4242 python, ..."
    std::string outcome;  // "killed (SIGTERM, SIGKILL)", "released 2 GiB", "refused: init"
};

// Any record, including events this version does not know (their target and outcome
// fields are shown when they have the usual names).
ActionRow describe_action(const nlohmann::ordered_json& record);

std::string actions_table(const engine::ActionsOutcome& log, OutputWidth width = std::nullopt);

}  // namespace gpukill::cli
