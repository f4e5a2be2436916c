// What `gpukill guard test` prints: per process, each rule it breaks, why, and what
// guard run would do about it. Text for people, JSON (docs/GUARD.md) for scripts.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/text_wrap.hpp"
#include "engine/guard_test.hpp"

namespace gpukill::cli {

// The text of `gpukill guard test` (its JSON is the outcome's document).
std::string render_guard_report(const engine::GuardTestOutcome& report);

}  // namespace gpukill::cli
