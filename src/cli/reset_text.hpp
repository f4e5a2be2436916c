// How `gpukill reset` shows its preflight, plan and outcome to people. The JSON document
// is the engine's (engine/reset_report.hpp).
#pragma once

#include <string>

#include "cli/text_wrap.hpp"

#include "engine/reset_report.hpp"

namespace gpukill::cli {

std::string render_reset_report(const engine::ResetReport& report,
                                OutputWidth width = std::nullopt);

}  // namespace gpukill::cli
