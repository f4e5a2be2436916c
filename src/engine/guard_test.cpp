#include "engine/guard_test.hpp"

#include <algorithm>
#include <chrono>
#include <map>

#include "engine/guard_inputs.hpp"
#include "engine/guard_rogue.hpp"
#include "guard/decision_json.hpp"
#include "guard/evaluate.hpp"
#include "guard/policy_yaml.hpp"
#include "guard/time_window.hpp"
#include "guard/unix_groups.hpp"
#include "model/json_optional.hpp"

namespace gpukill::engine {

Result<GuardTestOutcome> guard_test(Engine& engine, const GuardTestRequest& request) {
    auto policy = guard::parse_policy(request.policy_text, request.source);
    if (!policy) return std::unexpected(as(ErrorCategory::invalid_input, policy.error()));
    auto protected_list = engine.protected_list();
    if (!protected_list) return std::unexpected(protected_list.error());
    const Snapshot snapshot = engine.list().snapshot;
    const EngineConfig& config = engine.config();

    GuardTestOutcome outcome;
    outcome.policy = std::move(*policy);
    const guard::GuardClock clock = guard::local_clock(std::chrono::system_clock::time_point(
        std::chrono::milliseconds(snapshot.timestamp_unix_ms)));
    guard::History history;
    if (guard::history_needed(outcome.policy) > guard::max_sample_gap(outcome.policy)) {
        const std::int64_t looks_back_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                               guard::history_needed(outcome.policy))
                                               .count();
        history = history_from_store(config.state_dir, snapshot.timestamp_unix_ms - looks_back_ms,
                                     snapshot.timestamp_unix_ms, outcome.notes);
    }
    const guard::GuardState state = saved_state(config.state_dir, outcome.notes);
    const auto groups = guard::resolve_unix_groups(outcome.policy, snapshot);
    const std::map<guard::IdentityKey, guard::RogueScore> rogue_scores = rogue_scores_for(
        config.roots, config.config_dir, config.state_dir, outcome.policy, snapshot, outcome.notes);
    guard::Evaluation evaluation =
        guard::evaluate(guard::EvaluationInput{.policy = outcome.policy,
                                               .snapshot = snapshot,
                                               .history = history,
                                               .clock = clock,
                                               .state = state,
                                               .reclaim_protected = *protected_list,
                                               .unix_group_members = groups,
                                               .rogue_scores = rogue_scores});
    outcome.decisions = std::move(evaluation.decisions);
    outcome.processes_checked = processes_judged(snapshot);
    outcome.evaluated_at_unix_ms = clock.unix_ms();
    return outcome;
}

nlohmann::ordered_json guard_test_json(const GuardTestOutcome& outcome) {
    using json = nlohmann::ordered_json;
    json decisions = json::array();
    for (const guard::Decision& decision : outcome.decisions) {
        decisions.push_back(guard::decision_json(decision, outcome.policy.terminate_timeout));
    }
    return json{
        {"schema_version", kGuardTestSchemaVersion},
        {"mode", guard::to_string(outcome.policy.mode)},
        {"evaluated_at_unix_ms", outcome.evaluated_at_unix_ms},
        {"processes_checked", outcome.processes_checked},
        {"notes", outcome.notes},
        {"decisions", decisions},
        {"signalled", false},
    };
}

}  // namespace gpukill::engine
