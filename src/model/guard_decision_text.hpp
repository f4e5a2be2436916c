// A guard decision in words, for people: what `guard test` shows and `guard run` logs.
#pragma once

#include <chrono>
#include <string>

#include "model/guard_decision.hpp"

namespace gpukill::guard {

// What a verdict leads to: "warn now; terminate (SIGTERM, SIGKILL after 10s) at
// 2026-11-29 12:05:00 if still in breach (grace 300s)".
std::string describe_outcome(const Decision& decision, std::chrono::seconds terminate_timeout);

}  // namespace gpukill::guard
