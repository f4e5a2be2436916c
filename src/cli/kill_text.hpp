// How `gpukill kill` shows a plan or its result to people: a table, the refusals and what
// each GPU got back. The JSON document is the engine's (engine/kill_report.hpp).
#pragma once

#include <string>

#include "cli/text_wrap.hpp"

#include "engine/kill_report.hpp"

namespace gpukill::cli {

// `with_refusals`: the refusals inside the report (reset's reclaim step); `gpukill kill`
// prints them on stderr instead (render_kill_refusals), keeping stdout for results.
std::string render_kill_report(const engine::KillReport& report, bool with_refusals = true,
                               OutputWidth width = std::nullopt);

// One stderr line per refusal, "gpukill: refused PID 1 (systemd): PID 1 is never
// signalled", and, when a named refusal stopped the plan, "gpukill: nothing was
// signalled: ...".
std::string render_kill_refusals(const engine::KillReport& report);

}  // namespace gpukill::cli
