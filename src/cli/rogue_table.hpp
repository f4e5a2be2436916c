// The `gpukill audit --rogue` table: one row per finding (PID, user, name, score, risk,
// heaviest evidence), every piece of evidence with its weight under it, then notes on
// what could not be judged; allowed processes after, with the entry that allowed them.
// Pure: report in, text out. Drawn from the report's JSON document (docs/JSON.md), so a
// fleet host's answer reads exactly as this host's.
#pragma once

#include <string>

#include "cli/text_wrap.hpp"

#include "detect/assessment.hpp"
#include "detect/rogue_json.hpp"

namespace gpukill::cli {

std::string render_rogue_table(const detect::RogueReport& report,
                               const detect::ReportContext& context,
                               OutputWidth width = std::nullopt);

// The same from the document `audit --rogue --json` prints (detect::report_json).
std::string render_rogue_document(const nlohmann::ordered_json& doc,
                                  OutputWidth width = std::nullopt);

}  // namespace gpukill::cli
