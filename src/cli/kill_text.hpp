// How `gpukill kill` shows a plan or its result to people: a table, the refusals and what
// each GPU got back. The JSON document is the engine's (engine/kill_report.hpp).
#pragma once

#include <string>

#include "engine/kill_report.hpp"

namespace gpukill::cli {

std::string render_kill_report(const engine::KillReport& report);

}  // namespace gpukill::cli
