#include "engine/guard.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "engine/engine_state.hpp"
#include "engine/guard_enforce.hpp"
#include "engine/guard_inputs.hpp"
#include "engine/guard_rogue.hpp"
#include "engine/guard_test.hpp"
#include "engine/project_facts.hpp"
#include "engine/user_terminals.hpp"
#include "guard/evaluate.hpp"
#include "guard/guard_records.hpp"
#include "guard/guard_state.hpp"
#include "guard/history.hpp"
#include "guard/policy_yaml.hpp"
#include "guard/protection.hpp"
#include "guard/unix_groups.hpp"
#include "model/guard_decision_json.hpp"
#include "model/guard_decision_text.hpp"
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

struct Guard::State {
    State(Engine& e, std::string path, std::string command_text, guard::Policy loaded,
          const Actor& actor, GuardEvents sink)
        : engine(e),
          policy_path(std::move(path)),
          command(std::move(command_text)),
          policy(std::move(loaded)),
          events(std::move(sink)),
          trail(start_trail(e, actor, command)),
          version(file_version(policy_path)) {}

    Engine& engine;
    std::string policy_path;
    std::string command;
    guard::Policy policy;
    GuardEvents events;
    AuditTrail trail;
    std::optional<std::pair<std::int64_t, std::int64_t>> version;  // mtime, size
    guard::History history;
    guard::GuardState state;
    std::vector<guard::Decision> last_decisions;
    std::vector<GuardAction> last_actions;
    std::set<std::string> notes_said;
    std::vector<std::string> startup_notes;
    std::set<std::pair<pid_t, std::uint64_t>> dry_run_logged;

    void emit(GuardEventKind kind, std::string text,
              std::optional<guard::Verdict> verdict = std::nullopt) {
        if (events) events(GuardEvent{.kind = kind, .text = std::move(text), .verdict = verdict});
    }
    void append(const std::vector<nlohmann::ordered_json>& records) {
        if (auto appended = trail.append_all(records); !appended) {
            emit(GuardEventKind::problem,
                 "warning: audit log write failed: " + appended.error().what);
        }
    }
    void warn(const Decision& decision);
    void act(const Snapshot& snapshot, const std::vector<guard::DueAction>& due,
             const reclaim::ProtectedList& protected_list);
};

std::string default_policy_path(const EngineConfig& config) {
    return guard::default_policy_path(config.config_dir);
}

Result<std::unique_ptr<Guard>> Guard::open(Engine& engine, GuardSetup setup, Actor actor,
                                           GuardEvents events,
                                           std::chrono::system_clock::time_point now) {
    const EngineConfig& config = engine.config();
    const std::string path =
        setup.policy_path ? *setup.policy_path : guard::default_policy_path(config.config_dir);
    auto policy = guard::load_policy_file(path);
    if (!policy) {
        if (policy.error().errno_value == ENOENT) {
            return fail(ErrorCategory::unavailable, missing_policy_message(path));
        }
        return std::unexpected(policy.error());
    }
    // Checked now so that a malformed list stops the start, not a cycle at 3 a.m.
    if (auto protected_list = load_protected_list(engine); !protected_list) {
        return std::unexpected(protected_list.error());
    }
    auto state = std::make_unique<State>(engine, path, std::move(setup.command), std::move(*policy),
                                         actor, std::move(events));
    state->state = saved_state(config.state_dir, state->startup_notes);
    const std::int64_t until = unix_ms(now);
    const guard::Policy& loaded = state->policy;
    if (guard::history_needed(loaded) > guard::max_sample_gap(loaded)) {
        state->history =
            history_from_store(config.state_dir, until - to_ms(guard::history_needed(loaded)),
                               until, state->startup_notes);
    }
    return std::unique_ptr<Guard>(new Guard(std::move(state)));
}

Guard::Guard(std::unique_ptr<State> state) : state_(std::move(state)) {}

Guard::~Guard() = default;

const guard::Policy& Guard::policy() const {
    return state_->policy;
}

const std::string& Guard::policy_path() const {
    return state_->policy_path;
}

const std::vector<guard::Decision>& Guard::last_decisions() const {
    return state_->last_decisions;
}

const std::vector<GuardAction>& Guard::last_actions() const {
    return state_->last_actions;
}

nlohmann::ordered_json Guard::last_decisions_json() const {
    nlohmann::ordered_json decisions = nlohmann::ordered_json::array();
    for (const Decision& decision : state_->last_decisions) {
        decisions.push_back(guard::decision_json(decision, state_->policy.terminate_timeout));
    }
    return decisions;
}

void Guard::start() {
    State& s = *state_;
    s.emit(GuardEventKind::started,
           fmt::format("guard run: policy {} (mode {}), checking every {}s", s.policy_path,
                       guard::to_string(s.policy.mode), s.policy.check_interval.count()));
    for (const std::string& note : s.startup_notes) s.emit(GuardEventKind::note, "note: " + note);
    s.startup_notes.clear();
}

void Guard::set_policy(guard::Policy policy) {
    State& s = *state_;
    s.policy = std::move(policy);
    s.emit(GuardEventKind::policy_reloaded,
           fmt::format("policy {} reloaded (mode {})", s.policy_path,
                       guard::to_string(s.policy.mode)));
}

Result<void> Guard::reload_policy() {
    State& s = *state_;
    s.version = file_version(s.policy_path);
    auto reloaded = guard::load_policy_file(s.policy_path);
    if (!reloaded) {
        s.emit(GuardEventKind::policy_kept,
               fmt::format("policy not reloaded, the previous one stays in force: {}",
                           reloaded.error().what));
        return std::unexpected(reloaded.error());
    }
    set_policy(std::move(*reloaded));
    return {};
}

void Guard::reload_if_changed() {
    if (file_version(state_->policy_path) == state_->version) return;
    (void)reload_policy();  // a refusal is reported as an event
}

void Guard::cycle(std::chrono::system_clock::time_point now) {
    if (state_->policy.mode == Mode::off) return;
    cycle(now, host_snapshot(state_->engine));
}

void Guard::cycle(std::chrono::system_clock::time_point now, Snapshot snapshot) {
    State& s = *state_;
    const guard::Policy& policy = s.policy;
    s.last_actions.clear();
    if (policy.mode == Mode::off) return;
    Engine& engine = s.engine;
    const EngineConfig& config = engine.config();
    // Recorded and judged at the caller's `now`.
    snapshot.timestamp_unix_ms = unix_ms(now);
    if (auto warning = engine.record_history(snapshot)) {
        s.emit(GuardEventKind::problem, "warning: " + *warning);
    }
    // The protected list as it is now: an edit takes effect this cycle. Without it the
    // guard cannot tell who must be spared, so it judges nothing and acts on nothing.
    auto protected_list = load_protected_list(engine);
    if (!protected_list) {
        s.emit(GuardEventKind::problem,
               "warning: nothing enforced this cycle: " + protected_list.error().what);
        return;
    }
    const auto groups = guard::resolve_unix_groups(policy, snapshot);
    std::vector<std::string> notes;
    const auto rogue_scores = rogue_scores_for(config.roots, config.config_dir, config.state_dir,
                                               policy, snapshot, notes);
    auto project_facts = read_project_facts(policy, snapshot, slurm_accounts_of(engine), notes);
    for (const std::string& note : notes) {
        // The same problem every cycle is said once.
        if (s.notes_said.insert(note).second) s.emit(GuardEventKind::note, "note: " + note);
    }
    guard::Evaluation evaluation = guard::evaluate(guard::EvaluationInput{
        .policy = policy,
        .snapshot = snapshot,
        .history = s.history,
        .clock = guard::local_clock(now),
        .state = s.state,
        .reclaim_protected = *protected_list,
        .unix_group_members = groups,
        .rogue_scores = rogue_scores,
        .project_facts = std::move(project_facts),
        .system_programs =
            guard::system_programs_for(config.roots, policy, *protected_list, snapshot)});
    s.state = evaluation.state;
    if (auto saved = guard::save_state(config.state_dir, s.state); !saved) {
        s.emit(
            GuardEventKind::problem,
            "warning: warnings not saved (a restart would start them over): " + saved.error().what);
    }
    s.history.add_snapshot(snapshot);
    s.history.forget_before(snapshot.timestamp_unix_ms - to_ms(guard::history_needed(policy)));

    for (const Decision& decision : evaluation.decisions) {
        if (decision.verdict == guard::Verdict::warn) s.warn(decision);
    }
    s.act(snapshot, guard::due_actions(evaluation.decisions), *protected_list);
    s.last_decisions = std::move(evaluation.decisions);
}

void Guard::State::warn(const Decision& decision) {
    const Mode mode = policy.mode;
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
                 user_terminals(engine.config().roots, *decision.uid), *decision.uid, message)) {
            delivered.push_back(tty);
        }
    }
    append({guard::guard_warning_record(trail.who(), mode, decision, delivered, trail.now())});
    emit(GuardEventKind::warned,
         fmt::format("{}warn PID {} {} (user {}) {}: {} -> {}",
                     mode == Mode::dry_run ? "dry-run: " : "", decision.identity.pid,
                     printable(decision.name), printable(decision.user), decision.rule_id,
                     printable(decision.why),
                     guard::describe_outcome(decision, policy.terminate_timeout)));
}

void Guard::State::act(const Snapshot& snapshot, const std::vector<guard::DueAction>& due,
                       const reclaim::ProtectedList& protected_list) {
    const Mode mode = policy.mode;
    if (mode == Mode::dry_run) {
        for (const guard::DueAction& action : due) {
            // A dry run would act on the same process every cycle: record it once.
            const auto key = std::pair{action.identity.pid, action.identity.start_time_ticks};
            if (!dry_run_logged.insert(key).second) continue;
            append({guard::guard_action_record(trail.who(), mode, action.verdict, action.because,
                                               std::nullopt, "dry run: nothing signalled",
                                               trail.now())});
            emit(GuardEventKind::dry_run_action,
                 fmt::format("dry-run: would {} PID {} {} ({})", guard::to_string(action.verdict),
                             action.identity.pid, printable(action.because.front()->name),
                             rules_of(action)),
                 action.verdict);
        }
        return;
    }
    EnforceInputs inputs{.roots = engine.config().roots,
                         .backends = backends_of(engine),
                         .protected_list = guard::protection_for_actions(policy, protected_list),
                         .terminate_timeout = policy.terminate_timeout,
                         .kill_timeout = policy.kill_timeout,
                         .verify_timeout = policy.verify_timeout,
                         .audit = [this](const auto& records) { append(records); },
                         .clock = [this] { return trail.now(); }};
    for (const EnforcedAction& done : enforce_due_actions(inputs, snapshot, due, trail.who())) {
        append(
            {guard::guard_action_record(trail.who(), mode, done.action.verdict, done.action.because,
                                        done.outcome, done.note, trail.now())});
        emit(GuardEventKind::acted,
             fmt::format("{} PID {} {} ({}): {}{}", guard::to_string(done.action.verdict),
                         done.action.identity.pid, printable(done.action.because.front()->name),
                         rules_of(done.action), done.outcome,
                         done.note ? " (" + printable(*done.note) + ")" : ""));
        last_actions.push_back(GuardAction{.identity = done.action.identity,
                                           .verdict = done.action.verdict,
                                           .outcome = done.outcome,
                                           .note = done.note});
    }
}

}  // namespace gpukill::engine
