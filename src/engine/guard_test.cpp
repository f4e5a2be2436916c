#include "engine/guard_test.hpp"
#include "engine/engine_state.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <map>

#include "engine/guard_inputs.hpp"
#include "engine/guard_rogue.hpp"
#include "engine/project_facts.hpp"
#include "engine/starter_policy.hpp"
#include "guard/evaluate.hpp"
#include "guard/policy_yaml.hpp"
#include "guard/protection.hpp"
#include "guard/time_window.hpp"
#include "guard/unix_groups.hpp"
#include "model/guard_decision_json.hpp"
#include "model/snapshot_json.hpp"
#include "model/snapshot_json_read.hpp"

namespace gpukill::engine {
namespace {

struct LoadedPolicy {
    guard::Policy policy;
    std::string source;
};

Result<LoadedPolicy> policy_for(const Engine& engine, const GuardTestRequest& request) {
    if (request.policy) {
        auto policy = guard::parse_policy(*request.policy, request.policy_source);
        if (!policy) return std::unexpected(as(ErrorCategory::invalid_input, policy.error()));
        return LoadedPolicy{std::move(*policy), request.policy_source};
    }
    const std::string path = guard::default_policy_path(engine.config().config_dir);
    auto policy = guard::load_policy_file(path);
    if (!policy) {
        if (policy.error().errno_value == ENOENT) {
            return fail(ErrorCategory::unavailable, missing_policy_message(path));
        }
        return std::unexpected(policy.error());
    }
    return LoadedPolicy{std::move(*policy), path};
}

}  // namespace

std::string missing_policy_message(const std::string& path) {
    const auto examples = installed_examples_dir();
    return fmt::format(
        "no guard policy at {}: `gpukill guard init` writes a commented starter policy there "
        "(mode dry-run{}), or pass --policy FILE",
        path, examples ? "; the example is " + *examples + "/guard.yaml" : "");
}

Result<GuardTestOutcome> guard_test(Engine& engine, const GuardTestRequest& request) {
    auto loaded = policy_for(engine, request);
    if (!loaded) return std::unexpected(loaded.error());
    auto protected_list = load_protected_list(engine);
    if (!protected_list) return std::unexpected(protected_list.error());

    GuardTestOutcome outcome;
    outcome.policy = std::move(loaded->policy);
    outcome.policy_source = std::move(loaded->source);
    Snapshot snapshot;
    const bool live = !request.snapshot;
    if (live) {
        snapshot = engine.snapshot().snapshot;
        outcome.snapshot_source = "live";
    } else {
        auto saved = snapshot_from_json(*request.snapshot);
        if (!saved) {
            return fail(ErrorCategory::invalid_input,
                        request.snapshot_source + ": " + saved.error().what);
        }
        snapshot = std::move(*saved);
        outcome.snapshot_source = request.snapshot_source;
    }
    const EngineConfig& config = engine.config();
    const guard::Policy& policy = outcome.policy;
    const guard::GuardClock clock = guard::local_clock(std::chrono::system_clock::time_point(
        std::chrono::milliseconds(snapshot.timestamp_unix_ms)));
    guard::History history;
    if (guard::history_needed(policy) > guard::max_sample_gap(policy)) {
        const std::int64_t looks_back_ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(guard::history_needed(policy))
                .count();
        history = history_from_store(config.state_dir, snapshot.timestamp_unix_ms - looks_back_ms,
                                     snapshot.timestamp_unix_ms, outcome.notes);
    }
    const guard::GuardState state = saved_state(config.state_dir, outcome.notes);
    const auto groups = guard::resolve_unix_groups(policy, snapshot);
    // Rogue evidence (sockets, sessions), Slurm accounts and pods belong to the live
    // processes: a saved snapshot's PIDs may name others by now.
    std::map<guard::IdentityKey, guard::RogueScore> rogue_scores;
    std::map<guard::IdentityKey, guard::ProjectFacts> project_facts;
    if (live) {
        rogue_scores = rogue_scores_for(config.roots, config.config_dir, config.state_dir, policy,
                                        snapshot, outcome.notes);
        project_facts =
            read_project_facts(policy, snapshot, slurm_accounts_of(engine), outcome.notes);
    } else if (std::any_of(policy.rules.begin(), policy.rules.end(),
                           [](const guard::RunawayRule& rule) {
                               return rule.kind == guard::RunawayKind::rogue;
                           })) {
        outcome.notes.push_back(
            "rogue rules are not judged on a saved snapshot: their evidence is read from the "
            "live processes");
    }
    // Protected programs are judged by the files the live processes run: a saved
    // snapshot's process protected that way only while it still runs (same start time).
    reclaim::SystemPrograms system_programs =
        guard::system_programs_for(config.roots, policy, *protected_list, snapshot);
    guard::Evaluation evaluation =
        guard::evaluate(guard::EvaluationInput{.policy = policy,
                                               .snapshot = snapshot,
                                               .history = history,
                                               .clock = clock,
                                               .state = state,
                                               .reclaim_protected = *protected_list,
                                               .unix_group_members = groups,
                                               .rogue_scores = rogue_scores,
                                               .project_facts = std::move(project_facts),
                                               .system_programs = std::move(system_programs)});
    outcome.decisions = std::move(evaluation.decisions);
    outcome.processes_checked = processes_judged(snapshot);
    outcome.evaluated_at_unix_ms = clock.unix_ms();
    return outcome;
}

nlohmann::ordered_json GuardTestOutcome::document() const {
    using json = nlohmann::ordered_json;
    json listed = json::array();
    for (const guard::Decision& decision : decisions) {
        listed.push_back(guard::decision_json(decision, policy.terminate_timeout));
    }
    return json{
        {"schema_version", kGuardTestSchemaVersion},
        {"policy", policy_source},
        {"mode", guard::to_string(policy.mode)},
        {"evaluated_at", format_utc_timestamp(evaluated_at_unix_ms)},
        {"evaluated_at_unix_ms", evaluated_at_unix_ms},
        {"snapshot", snapshot_source},
        {"processes_checked", processes_checked},
        {"notes", notes},
        {"decisions", listed},
        {"signalled", false},
    };
}

}  // namespace gpukill::engine
