#include "cli/guard_cli.hpp"

#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>

#include "cli/diagnostics.hpp"
#include "cli/engine_session.hpp"
#include "cli/guard_report.hpp"
#include "cli/guard_run.hpp"
#include "cli/json_result.hpp"
#include "engine/guard.hpp"
#include "engine/guard_test.hpp"
#include "engine/outcome_codes.hpp"
#include "engine/policy_edit.hpp"
#include "model/json_text.hpp"
#include "model/quoted_text.hpp"

namespace gpukill::cli {
namespace {

// `gpukill guard check FILE`: the whole file is read as guard run would read it.
int run_check(const std::string& path) {
    auto summary = engine::check_policy_file(path);
    if (!summary) return report_error(summary.error());
    fmt::print("{}: valid ({})\n", path, summary->contents);
    return exit_code::ok;
}

// `gpukill guard test`: the engine's guard test (the one the agent and MCP run), its
// decisions printed; nothing is signalled.
int run_test(const GlobalOptions& global, const GuardOptions& options,
             engine::GuardTestRequest request) {
    if (options.policy) request.policy_source = *options.policy;
    if (options.snapshot) request.snapshot_source = *options.snapshot;
    // A saved snapshot needs no GPU library.
    auto engine = open_engine(global, !request.snapshot);
    if (!engine) return engine.error();
    auto tested = engine::guard_test(**engine, request);
    if (!tested) return report_error(tested.error());
    if (options.json) {
        print_json_result(tested->document());
    } else {
        std::fputs(fit_to_width(render_guard_report(*tested), global.output_width).c_str(), stdout);
    }
    return exit_code::ok;
}

// `gpukill guard init`: the starter policy (mode dry-run) where the policy is read
// from, never over an existing file.
int run_init(const GlobalOptions& global, const GuardOptions& options,
             const std::vector<std::string>& argv) {
    auto engine = open_engine(global, false);
    if (!engine) return engine.error();
    auto written =
        engine::init_policy(**engine, options.policy, shell_join(argv), command_line_actor());
    if (!written) return report_error(written.error());
    const std::string& path = written->path;
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
    remember(app.add_flag("--once", options.once, "guard run: one evaluation cycle, then exit")
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

int run_guard(const GlobalOptions& global, const GuardCli& cli, const RequestOptions& requests,
              const std::vector<std::string>& argv) {
    // --policy and --snapshot are guard test's request fields (files read into it); guard
    // run, check and the policy edits take the policy's path.
    GuardOptions options = cli.options;
    if (const auto policy = requests.values("--policy"); !policy.empty()) {
        options.policy = policy.front();
    }
    if (const auto snapshot = requests.values("--snapshot"); !snapshot.empty()) {
        options.snapshot = snapshot.front();
    }
    const bool testing = cli.test->parsed() || options.compat_test;
    if (!testing && (requests.given("--policy-text") || requests.given("--snapshot-text"))) {
        return usage_error("--policy-text and --snapshot-text only apply to guard test");
    }
    if (options.once && !cli.run->parsed()) return usage_error("--once only applies to guard run");
    if (options.snapshot && !testing) {
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
    if (testing) {
        auto request = requests.request<engine::GuardTestRequest>();
        if (!request) return usage_error(request.error().what);
        return run_test(global, options, std::move(*request));
    }
    if (options.compat_guard) {
        // `gpukill --guard` alone: is the policy in effect valid, and what does it say.
        return run_check(options.policy ? *options.policy
                                        : engine::default_policy_path(engine_config(global)));
    }
    return usage_error(
        "guard needs one of: init, check FILE, test (or --guard-test-policies), run (see "
        "gpukill help guard)");
}

}  // namespace gpukill::cli
