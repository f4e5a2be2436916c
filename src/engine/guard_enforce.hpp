// Carrying out guard run's due actions through the reclaim engine, as `gpukill kill`
// does: a plan per action kind (terminate: SIGTERM then SIGKILL after the policy's
// terminate_timeout; kill: SIGKILL), each target bound to its identity (pidfd + start
// time), every safety rule and the protected list applied again, children holding the
// same GPU taken along, the memory release verified, every step audited.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "audit/envelope.hpp"
#include "backends/backend.hpp"
#include "engine/audit_trail.hpp"
#include "model/guard_decision.hpp"
#include "model/host_roots.hpp"
#include "model/snapshot.hpp"
#include "reclaim/select.hpp"

namespace gpukill::engine {

struct EnforcedAction {
    guard::DueAction action;
    std::string outcome;  // the reclaim outcome ("terminated", "killed", ...), or "refused"
    std::optional<std::string> note;
};

struct EnforceInputs {
    const HostRoots& roots;
    const std::vector<std::unique_ptr<Backend>>& backends;
    // gpukill's list joined with the policy's (guard/protection.hpp): every target the
    // plan holds is checked against it, the workers it takes along too.
    reclaim::ProtectedList protected_list;
    // The policy's terminate_timeout, kill_timeout and verify_timeout.
    std::chrono::seconds terminate_timeout{10};
    std::chrono::seconds kill_timeout{5};
    std::chrono::seconds verify_timeout{10};
    // Receives the reclaim engine's audit records of each step (plan, signals, results,
    // verification), in order.
    std::function<void(const std::vector<nlohmann::ordered_json>&)> audit;
    SystemClock clock;  // the records' timestamps
};

// `snapshot` is the one the decisions were made on.
std::vector<EnforcedAction> enforce_due_actions(const EnforceInputs& inputs,
                                                const Snapshot& snapshot,
                                                const std::vector<guard::DueAction>& due,
                                                const audit::Invocation& who);

}  // namespace gpukill::engine
