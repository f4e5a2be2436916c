// The `gpukill audit --rogue` table: one row per finding (PID, user, name, score, risk,
// heaviest evidence), every piece of evidence with its weight under it, then notes on
// what could not be judged; allowed processes after, with the entry that allowed them.
// Pure: report in, text out.
#pragma once

#include <string>

#include "cli/text_wrap.hpp"

#include "detect/assessment.hpp"
#include "detect/rogue_json.hpp"

namespace gpukill::cli {

std::string render_rogue_table(const detect::RogueReport& report,
                               const detect::ReportContext& context,
                               OutputWidth width = std::nullopt);

}  // namespace gpukill::cli
