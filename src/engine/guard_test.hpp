// `guard test` as an engine call: a policy (text, or the configured file) judged against
// the host now, with the saved warnings, the usage history and rogue scores, exactly as
// `gpukill guard test` and the guard loop judge it. Signals nothing, records nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine.hpp"
#include "guard/decision.hpp"
#include "guard/policy.hpp"
#include "model/result.hpp"

namespace gpukill::engine {

struct GuardTestRequest {
    std::string policy_text;        // YAML, as guard.yaml holds it
    std::string source = "policy";  // names the text in errors ("policy:3:5: ...")
};

struct GuardTestOutcome {
    guard::Policy policy;
    std::vector<guard::Decision> decisions;
    std::vector<std::string> notes;  // what limited the evaluation
    std::size_t processes_checked = 0;
    std::int64_t evaluated_at_unix_ms = 0;
};

// Errors: invalid_input (the policy is malformed: "SOURCE:LINE:COLUMN: why", or
// protected.yaml is), unavailable (protected.yaml unreadable).
Result<GuardTestOutcome> guard_test(Engine& engine, const GuardTestRequest& request);

inline constexpr int kGuardTestSchemaVersion = 1;

// {"schema_version", "mode", "evaluated_at_unix_ms", "processes_checked", "notes",
// "decisions": [{"pid", "start_time_ticks", "name", "user", "uid", "gpus", "rule",
// "rule_action", "grace_period_seconds", "why", "verdict", "warned_at_unix_ms",
// "acts_at_unix_ms", "protected_because"}], "signalled": false}: the fields of
// `gpukill guard test --json` (docs/GUARD.md).
nlohmann::ordered_json guard_test_json(const GuardTestOutcome& outcome);

}  // namespace gpukill::engine
