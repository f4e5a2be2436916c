// One guard decision as JSON: the element of `decisions` in `gpukill guard test --json`,
// the agent's /v1/guard and the MCP guard_test tool (docs/JSON.md), written by one
// function so the three cannot drift apart.
#pragma once

#include <chrono>

#include <nlohmann/json.hpp>

#include "model/guard_decision.hpp"

namespace gpukill::guard {

// `terminate_timeout` words the outcome ("terminate (SIGTERM, SIGKILL after 10s) now").
nlohmann::ordered_json decision_json(const Decision& decision,
                                     std::chrono::seconds terminate_timeout);

}  // namespace gpukill::guard
