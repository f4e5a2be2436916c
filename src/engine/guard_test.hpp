// `guard test` as an engine call: a policy (text, or the configured file) judged against
// the host now, with the saved warnings, the usage history and rogue scores, exactly as
// `gpukill guard test` and the guard loop judge it. Signals nothing, records nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine.hpp"
#include "model/guard_decision.hpp"
#include "model/guard_policy.hpp"
#include "model/result.hpp"

namespace gpukill::engine {

// engine/request_tables.cpp describes each field for every door.
struct GuardTestRequest {
    // The policy's YAML; empty: the configured file (CONFIG_DIR/guard.yaml).
    std::optional<std::string> policy;
    // A saved `gpukill list --json` document to judge instead of the live host.
    std::optional<std::string> snapshot;
    // Not fields: what the documents are called in errors ("p.yaml:3:5: ..."), the file
    // they were read from when a door read one.
    std::string policy_source = "policy";
    std::string snapshot_source = "snapshot";
};

struct GuardTestOutcome {
    guard::Policy policy;
    std::string policy_source;    // the policy file, or the request's name for its text
    std::string snapshot_source;  // "live", or the saved snapshot's name
    std::vector<guard::Decision> decisions;
    std::vector<std::string> notes;  // what limited the evaluation
    std::size_t processes_checked = 0;
    // The moment judged: the snapshot's own (a saved snapshot is judged as of when it
    // was taken, so its time windows are the ones that applied then).
    std::int64_t evaluated_at_unix_ms = 0;

    // docs/GUARD.md, "gpukill guard test --json": {"schema_version", "policy", "mode",
    // "evaluated_at", "evaluated_at_unix_ms", "snapshot", "processes_checked", "notes",
    // "decisions": [{"pid", "start_time_ticks", "name", "user", "uid", "gpus", "rule",
    // "rule_action", "grace_period_seconds", "why", "verdict", "warned_at_unix_ms",
    // "acts_at_unix_ms", "protected_because"}], "signalled": false}.
    nlohmann::ordered_json document() const;
};

// The one guard test every door runs (the command line, MCP, the agent's
// POST /v1/guard/test, the fleet through either): the policy judged with the saved
// warnings, the usage history, the protected list and, on the live host, rogue scores
// and project facts (Slurm accounts, pods), exactly as the guard loop judges it.
// Errors: invalid_input (a malformed policy "SOURCE:LINE:COLUMN: why", a malformed
// snapshot, or protected.yaml), unavailable (no policy given and none configured: the
// message says how to write one; or a file that exists but cannot be read).
Result<GuardTestOutcome> guard_test(Engine& engine, const GuardTestRequest& request);

// "no guard policy at PATH: `gpukill guard init` writes ...": how to make one.
std::string missing_policy_message(const std::string& path);

inline constexpr int kGuardTestSchemaVersion = 1;

}  // namespace gpukill::engine
