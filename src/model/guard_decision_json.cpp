#include "model/guard_decision_json.hpp"

#include "model/guard_decision_text.hpp"
#include "model/json_optional.hpp"

namespace gpukill::guard {

nlohmann::ordered_json decision_json(const Decision& decision,
                                     std::chrono::seconds terminate_timeout) {
    using json = nlohmann::ordered_json;
    return json{
        {"pid", decision.identity.pid},
        {"start_time_ticks", decision.identity.start_time_ticks},
        {"name", decision.name},
        {"user", decision.user.empty() ? json(nullptr) : json(decision.user)},
        {"uid", or_null(decision.uid)},
        {"gpus", decision.gpus},
        {"rule", decision.rule_id},
        {"rule_action", to_string(decision.enforcement.action)},
        {"grace_period_seconds", decision.enforcement.grace_period.count()},
        {"why", decision.why},
        {"verdict", to_string(decision.verdict)},
        {"outcome", describe_outcome(decision, terminate_timeout)},
        {"warned_at_unix_ms", or_null(decision.warned_at_unix_ms)},
        {"acts_at_unix_ms", or_null(decision.acts_at_unix_ms)},
        {"protected_because", decision.verdict == Verdict::protected_process
                                  ? json(decision.protected_because)
                                  : json(nullptr)},
    };
}

}  // namespace gpukill::guard
