#include "cli/guard_run.hpp"

#include <sys/stat.h>

#include <fmt/format.h>

#include <cstdio>
#include <optional>
#include <set>

#include "backends/registry.hpp"
#include "cli/audit_trail.hpp"
#include "cli/exit_codes.hpp"
#include "cli/guard_enforce.hpp"
#include "cli/guard_inputs.hpp"
#include "cli/guard_report.hpp"
#include "cli/guard_rogue.hpp"
#include "cli/guard_terminals.hpp"
#include "cli/history_recorder.hpp"
#include "cli/human_format.hpp"
#include "cli/watch.hpp"
#include "discovery/discover.hpp"
#include "guard/guard_records.hpp"
#include "guard/policy_yaml.hpp"
#include "guard/protection.hpp"
#include "guard/unix_groups.hpp"

namespace gpukill::cli {
namespace {

using guard::Decision;
using guard::Mode;

std::int64_t to_ms(std::chrono::seconds seconds) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(seconds).count();
}

// The file's modification time and size: a change means "read it again".
std::optional<std::pair<std::int64_t, std::int64_t>> file_version(const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) return std::nullopt;
    return std::pair{
        static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec,
        static_cast<std::int64_t>(info.st_size)};
}

class GuardRunner {
  public:
    GuardRunner(const GlobalOptions& global, PolicyFile policy,
                reclaim::ProtectedList protected_list, const std::vector<std::string>& argv)
        : global_(global),
          policy_(std::move(policy)),
          version_(file_version(policy_.path)),
          protected_list_(std::move(protected_list)),
          trail_(global.state_dir, argv),
          backends_(open_backends(backend_config(global), std::nullopt)),
          recorder_(global) {
        if (!trail_.ok()) startup_lines_.push_back("warning: " + trail_.problem());
        std::vector<std::string> notes;
        state_ = saved_state(global.state_dir, notes);
        const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count();
        if (guard::history_needed(policy_.policy) > guard::max_sample_gap(policy_.policy)) {
            history_ = history_from_store(
                global.state_dir, now - to_ms(guard::history_needed(policy_.policy)), now, notes);
        }
        for (const std::string& note : notes) startup_lines_.push_back("note: " + note);
    }

    std::optional<std::string> backend_failure() const {
        return requested_backend_failure(backends_);
    }
    const guard::Policy& policy() const { return policy_.policy; }

    void start_message() {
        say(fmt::format("guard run: policy {} (mode {}), checking every {}s", policy_.path,
                        guard::to_string(policy_.policy.mode),
                        policy_.policy.check_interval.count()));
        for (const std::string& line : startup_lines_) say(line);
    }

    // One evaluation and what follows from it.
    void cycle() {
        reload_policy_if_changed();
        const guard::Policy& policy = policy_.policy;
        if (policy.mode == Mode::off) return;
        Snapshot snapshot = discover(global_.roots, backends_, &discovery_);
        recorder_.record(snapshot);
        const auto groups = guard::resolve_unix_groups(policy, snapshot);
        std::vector<std::string> notes;
        const auto rogue_scores = rogue_scores_for(global_, policy, snapshot, notes);
        for (const std::string& note : notes) {
            // The same problem every cycle is said once.
            if (notes_said_.insert(note).second) say("note: " + note);
        }
        const guard::GuardClock clock = guard::local_clock(std::chrono::system_clock::time_point(
            std::chrono::milliseconds(snapshot.timestamp_unix_ms)));
        guard::Evaluation evaluation =
            guard::evaluate(guard::EvaluationInput{.policy = policy,
                                                   .snapshot = snapshot,
                                                   .history = history_,
                                                   .clock = clock,
                                                   .state = state_,
                                                   .reclaim_protected = protected_list_,
                                                   .unix_group_members = groups,
                                                   .rogue_scores = rogue_scores});
        state_ = evaluation.state;
        if (auto saved = guard::save_state(global_.state_dir, state_); !saved) {
            say("warning: warnings not saved (a restart would start them over): " +
                saved.error().what);
        }
        history_.add_snapshot(snapshot);
        history_.forget_before(snapshot.timestamp_unix_ms - to_ms(guard::history_needed(policy)));

        for (const Decision& decision : evaluation.decisions) {
            if (decision.verdict == guard::Verdict::warn) warn(decision);
        }
        act(snapshot, guard::due_actions(evaluation.decisions));
    }

  private:
    void say(const std::string& line) {
        fmt::print("{} {}\n", format_local_time(now_ms()), line);
        std::fflush(stdout);
    }
    static std::int64_t now_ms() {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
    }

    void append(const std::vector<nlohmann::ordered_json>& records) {
        if (auto appended = trail_.append_all(records); !appended) {
            say("warning: audit log write failed: " + appended.error().what);
        }
    }

    void reload_policy_if_changed() {
        auto version = file_version(policy_.path);
        if (version == version_) return;
        version_ = version;
        auto reloaded = guard::load_policy_file(policy_.path);
        if (!reloaded) {
            say(fmt::format("policy not reloaded, the previous one stays in force: {}",
                            reloaded.error().what));
            return;
        }
        policy_.policy = std::move(*reloaded);
        say(fmt::format("policy {} reloaded (mode {})", policy_.path,
                        guard::to_string(policy_.policy.mode)));
    }

    void warn(const Decision& decision) {
        const Mode mode = policy_.policy.mode;
        std::vector<std::string> delivered;
        if (mode == Mode::enforce && decision.uid) {
            const std::string action =
                decision.enforcement.action == guard::Action::warn
                    ? std::string("This is a warning.")
                    : fmt::format("It will be {} at {} unless it complies.",
                                  decision.enforcement.action == guard::Action::kill ? "killed"
                                                                                     : "terminated",
                                  format_local_time(decision.acts_at_unix_ms.value_or(0)));
            const std::string message = fmt::format(
                "gpukill guard: your process {} ({}) breaks {}: {}. {}", decision.identity.pid,
                decision.name, decision.rule_id, decision.why, action);
            for (const std::string& tty : write_to_terminals(
                     user_terminals(global_.roots, *decision.uid), *decision.uid, message)) {
                delivered.push_back(tty);
            }
        }
        append({guard::guard_warning_record(who(), mode, decision, delivered)});
        say(fmt::format("{}warn PID {} {} (user {}) {}: {} -> {}",
                        mode == Mode::dry_run ? "dry-run: " : "", decision.identity.pid,
                        printable(decision.name), printable(decision.user), decision.rule_id,
                        printable(decision.why),
                        describe_outcome(decision, policy_.policy.terminate_timeout)));
    }

    void act(const Snapshot& snapshot, const std::vector<guard::DueAction>& due) {
        const Mode mode = policy_.policy.mode;
        if (mode == Mode::dry_run) {
            for (const guard::DueAction& action : due) {
                // A dry run would act on the same process every cycle: log it once.
                const auto key = std::pair{action.identity.pid, action.identity.start_time_ticks};
                if (!dry_run_logged_.insert(key).second) continue;
                append({guard::guard_action_record(who(), mode, action.verdict, action.because,
                                                   std::nullopt, "dry run: nothing signalled")});
                say(fmt::format("dry-run: would {} PID {} {} ({})",
                                guard::to_string(action.verdict), action.identity.pid,
                                printable(action.because.front()->name), rules_of(action)));
            }
            return;
        }
        EnforceInputs inputs{
            .global = global_,
            .backends = backends_,
            .protected_list = guard::protection_for_actions(policy_.policy, protected_list_),
            .terminate_timeout = policy_.policy.terminate_timeout,
            .kill_timeout = policy_.policy.kill_timeout,
            .verify_timeout = policy_.policy.verify_timeout,
            .audit = [this](const auto& records) { append(records); }};
        for (const EnforcedAction& done : enforce_due_actions(inputs, snapshot, due, who())) {
            append({guard::guard_action_record(who(), mode, done.action.verdict,
                                               done.action.because, done.outcome, done.note)});
            say(fmt::format("{} PID {} {} ({}): {}{}", guard::to_string(done.action.verdict),
                            done.action.identity.pid, printable(done.action.because.front()->name),
                            rules_of(done.action), done.outcome,
                            done.note ? " (" + printable(*done.note) + ")" : ""));
        }
    }

    static std::string rules_of(const guard::DueAction& action) {
        std::string rules;
        for (const Decision* decision : action.because) {
            rules += (rules.empty() ? "" : ", ") + decision->rule_id;
        }
        return rules;
    }

    const GlobalOptions& global_;
    PolicyFile policy_;
    std::optional<std::pair<std::int64_t, std::int64_t>> version_;
    reclaim::ProtectedList protected_list_;
    AuditTrail trail_;
    const audit::Invocation& who() const { return trail_.who(); }
    std::vector<std::unique_ptr<Backend>> backends_;
    DiscoveryState discovery_;
    HistoryRecorder recorder_;
    guard::History history_;
    guard::GuardState state_;
    std::set<std::string> notes_said_;
    std::vector<std::string> startup_lines_;  // said after the start line
    std::set<std::pair<pid_t, std::uint64_t>> dry_run_logged_;
};

}  // namespace

int run_guard_loop(const GlobalOptions& global, const GuardOptions& options,
                   const std::vector<std::string>& argv) {
    auto policy = load_guard_policy(global, options.policy);
    if (!policy) return policy.error();
    auto protected_list = load_reclaim_protected(global);
    if (!protected_list) return protected_list.error();
    GuardRunner runner(global, std::move(*policy), std::move(*protected_list), argv);
    if (auto failure = runner.backend_failure()) {
        fmt::print(stderr, "gpukill: {}\n", *failure);
        return exit_code::failure;
    }
    runner.start_message();
    if (options.once) {
        runner.cycle();
        return exit_code::ok;
    }
    const double interval = static_cast<double>(runner.policy().check_interval.count());
    return watch_until_interrupted(
        WatchOptions{.interval_seconds = interval, .clear_screen = false}, [&](std::string&) {
            runner.cycle();
            return exit_code::ok;
        });
}

}  // namespace gpukill::cli
