#include "engine/guard.hpp"

#include <sys/stat.h>

#include <fmt/format.h>

#include "engine/guard_enforce.hpp"
#include "engine/guard_inputs.hpp"
#include "engine/guard_rogue.hpp"
#include "engine/project_facts.hpp"
#include "engine/user_terminals.hpp"
#include "guard/decision_text.hpp"
#include "guard/guard_records.hpp"
#include "guard/policy_yaml.hpp"
#include "guard/protection.hpp"
#include "guard/unix_groups.hpp"
#include "model/human_format.hpp"

namespace gpukill::engine {
namespace {

using guard::Decision;
using guard::Mode;

std::int64_t to_ms(std::chrono::seconds seconds) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(seconds).count();
}

std::int64_t unix_ms(std::chrono::system_clock::time_point when) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch()).count();
}

// The file's modification time and size: a change means "read it again".
std::optional<std::pair<std::int64_t, std::int64_t>> file_version(const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) return std::nullopt;
    return std::pair{
        static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec,
        static_cast<std::int64_t>(info.st_size)};
}

std::string rules_of(const guard::DueAction& action) {
    std::string rules;
    for (const Decision* decision : action.because) {
        rules += (rules.empty() ? "" : ", ") + decision->rule_id;
    }
    return rules;
}

}  // namespace

Guard::Guard(Engine& engine, GuardSetup setup, Actor actor, GuardEvents events,
             std::chrono::system_clock::time_point now)
    : engine_(engine),
      setup_(std::move(setup)),
      events_(std::move(events)),
      trail_(engine.trail(actor, setup_.command)),
      version_(file_version(setup_.policy_path)) {
    const EngineConfig& config = engine_.config();
    state_ = saved_state(config.state_dir, startup_notes_);
    const std::int64_t until = unix_ms(now);
    const guard::Policy& policy = setup_.policy;
    if (guard::history_needed(policy) > guard::max_sample_gap(policy)) {
        history_ = history_from_store(
            config.state_dir, until - to_ms(guard::history_needed(policy)), until, startup_notes_);
    }
}

void Guard::emit(GuardEventKind kind, std::string text, std::optional<guard::Verdict> verdict) {
    if (events_) events_(GuardEvent{.kind = kind, .text = std::move(text), .verdict = verdict});
}

void Guard::start() {
    emit(GuardEventKind::started,
         fmt::format("guard run: policy {} (mode {}), checking every {}s", setup_.policy_path,
                     guard::to_string(setup_.policy.mode), setup_.policy.check_interval.count()));
    for (const std::string& note : startup_notes_) emit(GuardEventKind::note, "note: " + note);
    startup_notes_.clear();
}

void Guard::set_policy(guard::Policy policy) {
    setup_.policy = std::move(policy);
    emit(GuardEventKind::policy_reloaded,
         fmt::format("policy {} reloaded (mode {})", setup_.policy_path,
                     guard::to_string(setup_.policy.mode)));
}

Result<void> Guard::reload_policy() {
    version_ = file_version(setup_.policy_path);
    auto reloaded = guard::load_policy_file(setup_.policy_path);
    if (!reloaded) {
        emit(GuardEventKind::policy_kept,
             fmt::format("policy not reloaded, the previous one stays in force: {}",
                         reloaded.error().what));
        return std::unexpected(reloaded.error());
    }
    set_policy(std::move(*reloaded));
    return {};
}

void Guard::reload_if_changed() {
    if (file_version(setup_.policy_path) == version_) return;
    (void)reload_policy();  // a refusal is reported as an event
}

void Guard::append(const std::vector<nlohmann::ordered_json>& records) {
    if (auto appended = trail_.append_all(records); !appended) {
        emit(GuardEventKind::problem, "warning: audit log write failed: " + appended.error().what);
    }
}

void Guard::cycle(std::chrono::system_clock::time_point now) {
    if (setup_.policy.mode == Mode::off) return;
    cycle(now, engine_.discover_host());
}

void Guard::cycle(std::chrono::system_clock::time_point now, Snapshot snapshot) {
    const guard::Policy& policy = setup_.policy;
    last_actions_.clear();
    if (policy.mode == Mode::off) return;
    const EngineConfig& config = engine_.config();
    // Recorded and judged at the caller's `now`.
    snapshot.timestamp_unix_ms = unix_ms(now);
    if (auto warning = engine_.record_history(snapshot)) {
        emit(GuardEventKind::problem, "warning: " + *warning);
    }
    const auto groups = guard::resolve_unix_groups(policy, snapshot);
    std::vector<std::string> notes;
    const auto rogue_scores = rogue_scores_for(config.roots, config.config_dir, config.state_dir,
                                               policy, snapshot, notes);
    auto project_facts = read_project_facts(policy, snapshot, engine_.slurm_accounts(), notes);
    for (const std::string& note : notes) {
        // The same problem every cycle is said once.
        if (notes_said_.insert(note).second) emit(GuardEventKind::note, "note: " + note);
    }
    guard::Evaluation evaluation =
        guard::evaluate(guard::EvaluationInput{.policy = policy,
                                               .snapshot = snapshot,
                                               .history = history_,
                                               .clock = guard::local_clock(now),
                                               .state = state_,
                                               .reclaim_protected = setup_.protected_list,
                                               .unix_group_members = groups,
                                               .rogue_scores = rogue_scores,
                                               .project_facts = std::move(project_facts)});
    state_ = evaluation.state;
    if (auto saved = guard::save_state(config.state_dir, state_); !saved) {
        emit(
            GuardEventKind::problem,
            "warning: warnings not saved (a restart would start them over): " + saved.error().what);
    }
    history_.add_snapshot(snapshot);
    history_.forget_before(snapshot.timestamp_unix_ms - to_ms(guard::history_needed(policy)));

    for (const Decision& decision : evaluation.decisions) {
        if (decision.verdict == guard::Verdict::warn) warn(decision);
    }
    act(snapshot, guard::due_actions(evaluation.decisions));
    last_decisions_ = std::move(evaluation.decisions);
}

void Guard::warn(const Decision& decision) {
    const Mode mode = setup_.policy.mode;
    std::vector<std::string> delivered;
    if (mode == Mode::enforce && decision.uid) {
        const std::string action =
            decision.enforcement.action == guard::Action::warn
                ? std::string("This is a warning.")
                : fmt::format(
                      "It will be {} at {} unless it complies.",
                      decision.enforcement.action == guard::Action::kill ? "killed" : "terminated",
                      format_local_time(decision.acts_at_unix_ms.value_or(0)));
        const std::string message = fmt::format(
            "gpukill guard: your process {} ({}) breaks {}: {}. {}", decision.identity.pid,
            decision.name, decision.rule_id, decision.why, action);
        for (const std::string& tty : write_to_terminals(
                 user_terminals(engine_.config().roots, *decision.uid), *decision.uid, message)) {
            delivered.push_back(tty);
        }
    }
    append({guard::guard_warning_record(trail_.who(), mode, decision, delivered, trail_.now())});
    emit(GuardEventKind::warned,
         fmt::format("{}warn PID {} {} (user {}) {}: {} -> {}",
                     mode == Mode::dry_run ? "dry-run: " : "", decision.identity.pid,
                     printable(decision.name), printable(decision.user), decision.rule_id,
                     printable(decision.why),
                     guard::describe_outcome(decision, setup_.policy.terminate_timeout)));
}

void Guard::act(const Snapshot& snapshot, const std::vector<guard::DueAction>& due) {
    const Mode mode = setup_.policy.mode;
    if (mode == Mode::dry_run) {
        for (const guard::DueAction& action : due) {
            // A dry run would act on the same process every cycle: record it once.
            const auto key = std::pair{action.identity.pid, action.identity.start_time_ticks};
            if (!dry_run_logged_.insert(key).second) continue;
            append({guard::guard_action_record(trail_.who(), mode, action.verdict, action.because,
                                               std::nullopt, "dry run: nothing signalled",
                                               trail_.now())});
            emit(GuardEventKind::dry_run_action,
                 fmt::format("dry-run: would {} PID {} {} ({})", guard::to_string(action.verdict),
                             action.identity.pid, printable(action.because.front()->name),
                             rules_of(action)),
                 action.verdict);
        }
        return;
    }
    const guard::Policy& policy = setup_.policy;
    EnforceInputs inputs{
        .roots = engine_.config().roots,
        .backends = engine_.backends(),
        .protected_list = guard::protection_for_actions(policy, setup_.protected_list),
        .terminate_timeout = policy.terminate_timeout,
        .kill_timeout = policy.kill_timeout,
        .verify_timeout = policy.verify_timeout,
        .audit = [this](const auto& records) { append(records); },
        .clock = [this] { return trail_.now(); }};
    last_actions_ = enforce_due_actions(inputs, snapshot, due, trail_.who());
    for (const EnforcedAction& done : last_actions_) {
        append({guard::guard_action_record(trail_.who(), mode, done.action.verdict,
                                           done.action.because, done.outcome, done.note,
                                           trail_.now())});
        emit(GuardEventKind::acted,
             fmt::format("{} PID {} {} ({}): {}{}", guard::to_string(done.action.verdict),
                         done.action.identity.pid, printable(done.action.because.front()->name),
                         rules_of(done.action), done.outcome,
                         done.note ? " (" + printable(*done.note) + ")" : ""));
    }
}

}  // namespace gpukill::engine
