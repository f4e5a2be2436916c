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
// The same text from the outcome's JSON document (GuardTestOutcome::document): what a
// fleet host's answer reads as. render_guard_report is this over the document, so both
// read alike.
std::string render_guard_document(const nlohmann::ordered_json& doc);

}  // namespace gpukill::cli
