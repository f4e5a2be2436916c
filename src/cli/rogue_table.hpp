// The `gpukill audit --rogue` table: one row per finding (PID, user, name, score, risk,
// heaviest evidence), every piece of evidence with its weight under it, then notes on
// what could not be judged; allowed processes after, with the entry that allowed them.
// Pure: drawn from the scan's JSON document (docs/JSON.md, "gpukill audit --rogue
// --json"), the one every door returns, so a fleet's sections read as this host's.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cli/text_wrap.hpp"

namespace gpukill::cli {

std::string render_rogue_table(const nlohmann::ordered_json& report,
                               OutputWidth width = std::nullopt);

}  // namespace gpukill::cli
