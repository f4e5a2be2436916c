#include "cli/guard_cli.hpp"

#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>

#include "audit/envelope.hpp"
#include "backends/registry.hpp"
#include "cli/diagnostics.hpp"
#include "cli/engine_session.hpp"
#include "cli/guard_inputs.hpp"
#include "cli/guard_report.hpp"
#include "cli/guard_run.hpp"
#include "cli/json_result.hpp"
#include "cli/starter_policy.hpp"
#include "discovery/discover.hpp"
#include "discovery/snapshot_json_read.hpp"
#include "engine/config_changes.hpp"
#include "engine/guard_inputs.hpp"
#include "engine/guard_rogue.hpp"
#include "engine/outcome_codes.hpp"
#include "engine/project_facts.hpp"
#include "guard/policy_yaml.hpp"
#include "guard/unix_groups.hpp"
#include "host/proc_reader.hpp"
#include "model/json_text.hpp"

namespace gpukill::cli {
namespace {

// `gpukill guard check FILE`: the whole file is read as guard run would read it.
int run_check(const std::string& path) {
    auto policy = guard::load_policy_file(path);
    if (!policy) {
        print_error(policy.error().errno_value == ENOENT ? missing_policy_message(path)
                                                         : policy.error().what);
        return policy.error().errno_value != 0 ? exit_code::failure : exit_code::invalid_arguments;
    }
    fmt::print("{}: valid ({})\n", path, guard::policy_contents(*policy));
    return exit_code::ok;
}

struct TestSnapshot {
    Snapshot snapshot;
    std::string source;
};

std::expected<TestSnapshot, int> snapshot_for_test(const GlobalOptions& global,
                                                   const std::optional<std::string>& file) {
    if (file) {
        auto text = read_text_file(*file);
        if (!text) {
            print_error(text.error().what);
            return std::unexpected(exit_code::failure);
        }
        auto snapshot = snapshot_from_json(*text);
        if (!snapshot) {
            return std::unexpected(usage_error(*file + ": " + snapshot.error().what));
        }
        return TestSnapshot{std::move(*snapshot), *file};
    }
    auto backends = open_backends(backend_config(global), std::nullopt);
    if (auto failure = requested_backend_failure(backends)) {
        print_error(*failure);
        return std::unexpected(exit_code::failure);
    }
    return TestSnapshot{discover(global.roots, backends), "live"};
}

// `gpukill guard test`: evaluate the policy once, print the decisions, signal nothing.
// The moment judged is the snapshot's own (a saved snapshot is judged as of when it was
// taken, so its time windows are the ones that applied then).
int run_test(const GlobalOptions& global, const GuardOptions& options) {
    auto policy = load_guard_policy(global, options.policy);
    if (!policy) return policy.error();
    auto reclaim_protected = load_reclaim_protected(global);
    if (!reclaim_protected) return reclaim_protected.error();
    auto taken = snapshot_for_test(global, options.snapshot);
    if (!taken) return taken.error();
    const Snapshot& snapshot = taken->snapshot;

    const guard::GuardClock clock = guard::local_clock(std::chrono::system_clock::time_point(
        std::chrono::milliseconds(snapshot.timestamp_unix_ms)));
    std::vector<std::string> notes;
    const std::int64_t looks_back_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(guard::history_needed(policy->policy))
            .count();
    guard::History history;
    if (guard::history_needed(policy->policy) > guard::max_sample_gap(policy->policy)) {
        history =
            engine::history_from_store(global.state_dir, snapshot.timestamp_unix_ms - looks_back_ms,
                                       snapshot.timestamp_unix_ms, notes);
    }
    const guard::GuardState state = engine::saved_state(global.state_dir, notes);
    const auto groups = guard::resolve_unix_groups(policy->policy, snapshot);
    // Rogue evidence (sockets, sessions) is read from the live processes: a saved
    // snapshot's PIDs may name others by now.
    std::map<guard::IdentityKey, guard::RogueScore> rogue_scores;
    if (!options.snapshot) {
        rogue_scores = engine::rogue_scores_for(global.roots, global.config_dir, global.state_dir,
                                                policy->policy, snapshot, notes);
    } else if (std::any_of(policy->policy.rules.begin(), policy->policy.rules.end(),
                           [](const guard::RunawayRule& rule) {
                               return rule.kind == guard::RunawayKind::rogue;
                           })) {
        notes.push_back(
            "rogue rules are not judged on a saved snapshot: their evidence is read "
            "from the live processes");
    }
    // Jobs and pods, like rogue evidence, belong to the live processes.
    std::map<guard::IdentityKey, guard::ProjectFacts> project_facts;
    if (!options.snapshot) {
        SlurmAccounts accounts(engine::scontrol_program(engine_config(global)));
        project_facts = engine::read_project_facts(policy->policy, snapshot, accounts, notes);
    }
    guard::Evaluation evaluation =
        guard::evaluate(guard::EvaluationInput{.policy = policy->policy,
                                               .snapshot = snapshot,
                                               .history = history,
                                               .clock = clock,
                                               .state = state,
                                               .reclaim_protected = *reclaim_protected,
                                               .unix_group_members = groups,
                                               .rogue_scores = rogue_scores,
                                               .project_facts = std::move(project_facts)});

    GuardReport report{.policy_path = policy->path,
                       .mode = policy->policy.mode,
                       .terminate_timeout = policy->policy.terminate_timeout,
                       .evaluated_at_unix_ms = clock.unix_ms(),
                       .snapshot_source = taken->source,
                       .processes_checked = engine::processes_judged(snapshot),
                       .decisions = &evaluation.decisions,
                       .notes = notes};
    if (options.json) {
        print_json_result(guard_report_json(report));
    } else {
        std::fputs(fit_to_width(render_guard_report(report), global.output_width).c_str(), stdout);
    }
    return exit_code::ok;
}

// `gpukill guard init`: the starter policy (mode dry-run) where the policy is read
// from, never over an existing file.
int run_init(const GlobalOptions& global, const GuardOptions& options,
             const std::vector<std::string>& argv) {
    const std::string path =
        options.policy ? *options.policy : guard::default_policy_path(global.config_dir);
    const std::string text(starter_policy_text());
    if (auto checked = guard::parse_policy(text, path); !checked) {
        return print_error("the built-in starter policy does not load: " + checked.error().what,
                           exit_code::failure);
    }
    auto engine = open_engine(global, false);
    if (!engine) return engine.error();
    auto written = engine::write_guard_policy(
        **engine,
        engine::PolicyWrite{.path = path,
                            .text = text,
                            .change = "created from the starter policy (mode dry-run)",
                            .from = std::nullopt,
                            .command = audit::shell_join(argv),
                            .create_only = true},
        command_line_actor());
    if (!written) {
        if (written.error().category == ErrorCategory::conflict) {
            return print_error(
                fmt::format("{} exists; guard init never overwrites a policy (check it with "
                            "`gpukill guard check {}`, edit it, or remove it first)",
                            path, path),
                exit_code::failure);
        }
        return report_error(written.error());
    }
    if (written->audit_problem) print_error("warning: " + *written->audit_problem);
    const std::string text_out = fmt::format(
        "wrote {} (mode dry-run: guard run only logs what it would do)\n"
        "next: gpukill guard test    what it would do now\n"
        "      gpukill guard run     the loop; gpukill --guard-enforce when it should act\n",
        path);
    std::fputs(fit_to_width(text_out, global.output_width).c_str(), stdout);
    return exit_code::ok;
}

}  // namespace

void add_guard_cli(CLI::App& app, GuardCli& cli) {
    GuardOptions& options = cli.options;
    const char* group = "Guard (gpukill guard, or gpukill --guard)";
    auto remember = [&](CLI::Option* option) {
        cli.options_given.push_back(option);
        return option;
    };
    remember(app.add_flag("--guard", options.compat_guard,
                          "guard mode (same as `gpukill guard`); alone, checks the policy")
                 ->group(group));
    remember(app.add_flag("--guard-test-policies", options.compat_test,
                          "evaluate the policy now and print what would happen (guard test)")
                 ->group(group));
    remember(app.add_option("--policy", options.policy,
                            "guard policy file (default CONFIG_DIR/guard.yaml)")
                 ->type_name("FILE")
                 ->group(group));
    remember(app.add_flag("--once", options.once, "guard run: one evaluation cycle, then exit")
                 ->group(group));
    remember(app.add_option("--snapshot", options.snapshot,
                            "guard test: judge this saved `gpukill list --json` instead of the "
                            "live host")
                 ->type_name("FILE")
                 ->group(group));

    add_guard_edit_flags(app, cli.edit, cli.edit_options);
    cli.options_given.insert(cli.options_given.end(), cli.edit_options.begin(),
                             cli.edit_options.end());

    cli.command = app.add_subcommand("guard", "policy checks and enforcement (docs/GUARD.md)");
    cli.command->fallthrough();
    cli.init = cli.command->add_subcommand(
        "init", "write a commented starter policy (mode dry-run); never overwrites");
    cli.init->fallthrough();
    cli.check = cli.command->add_subcommand("check", "validate a policy file");
    cli.check->fallthrough();
    cli.check->add_option("file", options.check_file, "the policy file")->required();
    cli.test = cli.command->add_subcommand(
        "test", "evaluate the policy against the host or --snapshot FILE; signal nothing");
    cli.test->fallthrough();
    cli.run = cli.command->add_subcommand(
        "run", "the enforcement loop in the foreground: sample, evaluate, warn and act");
    cli.run->fallthrough();
}

bool guard_requested(const GuardCli& cli) {
    if (cli.command->parsed()) return true;
    for (const CLI::Option* option : cli.options_given) {
        if (option->count() > 0) return true;
    }
    return false;
}

bool guard_test_requested(const GuardCli& cli) {
    return (cli.test->parsed() || cli.options.compat_test) && !cli.init->parsed() &&
           !cli.check->parsed() && !cli.run->parsed() && !wants_guard_edit(cli.edit_options);
}

int run_guard(const GlobalOptions& global, const GuardCli& cli,
              const std::vector<std::string>& argv) {
    const GuardOptions& options = cli.options;
    if (options.once && !cli.run->parsed()) return usage_error("--once only applies to guard run");
    if (options.snapshot && !(cli.test->parsed() || options.compat_test)) {
        return usage_error("--snapshot only applies to guard test");
    }
    if (wants_guard_edit(cli.edit_options)) {
        if (cli.init->parsed() || cli.check->parsed() || cli.test->parsed() || cli.run->parsed() ||
            options.compat_test) {
            return usage_error(
                "policy-editing flags (--guard-enforce, --guard-add-user ...) go "
                "alone, not with guard check, test or run");
        }
        return run_guard_edit(global, cli.edit, options.policy, argv);
    }
    if (cli.init->parsed()) return run_init(global, options, argv);
    if (cli.check->parsed()) return run_check(*options.check_file);
    if (cli.run->parsed()) return run_guard_loop(global, options, argv);
    if (cli.test->parsed() || options.compat_test) return run_test(global, options);
    if (options.compat_guard) {
        // `gpukill --guard` alone: is the policy in effect valid, and what does it say.
        return run_check(options.policy ? *options.policy
                                        : guard::default_policy_path(global.config_dir));
    }
    return usage_error(
        "guard needs one of: init, check FILE, test (or --guard-test-policies), run (see "
        "gpukill help guard)");
}

}  // namespace gpukill::cli
