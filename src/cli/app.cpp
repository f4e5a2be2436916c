#include "cli/app.hpp"

#include <unistd.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <optional>
#include <vector>

#include "cli/command_docs.hpp"
#include "cli/command_line.hpp"
#include "cli/completion_values.hpp"
#include "cli/diagnostics.hpp"
#include "cli/doctor.hpp"
#include "cli/fleet_command.hpp"
#include "cli/help_text.hpp"
#include "cli/interface_commands.hpp"
#include "cli/json_result.hpp"
#include "cli/standard_streams.hpp"
#include "cli/suggest.hpp"
#include "cli/terminal_width.hpp"
#include "engine/audit_queries.hpp"
#include "engine/guard_test.hpp"
#include "engine/health_check.hpp"
#include "engine/kill.hpp"
#include "engine/list_request.hpp"
#include "engine/outcome_codes.hpp"
#include "engine/reset.hpp"
#include "model/human_format.hpp"

namespace gpukill::cli {
namespace {

bool given(const CommandLine& cl, const std::string& option) {
    const CLI::Option* found = cl.app->get_option_no_throw(option);
    return found != nullptr && found->count() > 0;
}

// The first option given that does not apply to `command`, if any.
std::optional<std::string> misplaced_option(const CommandLine& cl, Command command) {
    for (const OptionScope& scope : option_scopes()) {
        if (!given(cl, scope.name)) continue;
        if (std::find(scope.commands.begin(), scope.commands.end(), command) ==
            scope.commands.end()) {
            return fmt::format("{} does not apply to {}", scope.name, command_name(command));
        }
    }
    return std::nullopt;
}

int unknown_command_error(const std::string& word) {
    if (auto near = closest(word, command_words())) {
        return usage_error(
            fmt::format("unknown command '{}'; did you mean '{}'?", printable(word), *near));
    }
    return usage_error(
        fmt::format("unknown command '{}' (commands: {}; a PID is a number; see gpukill --help)",
                    printable(word), fmt::join(command_words(), ", ")));
}

int unknown_option_error(const CommandLine& cl, const CLI::ExtrasError& error) {
    const std::vector<std::string> names = cl.long_option_names();
    for (const std::string& extra : cl.app->remaining()) {
        const std::string word = extra.substr(0, extra.find('='));
        if (word.rfind("--", 0) != 0) continue;
        // A known option given before its command (`gpukill --no-rogue check`).
        std::vector<std::string> owners;
        const std::vector<OptionDoc> common = cl.common_options();
        const bool everyones = std::any_of(common.begin(), common.end(),
                                           [&](const OptionDoc& o) { return o.long_name == word; });
        for (Command command : kAllCommands) {
            for (const OptionDoc& option : cl.options_for(command)) {
                if (!everyones && option.long_name == word) {
                    owners.push_back(command_name(command));
                }
            }
        }
        return usage_error(unknown_option_message(word, names, owners));
    }
    return usage_error(fmt::format("{} (see gpukill --help)", error.what()));
}

// What `gpukill help ...`, `gpukill CMD --help` or `-h` asks for: nothing, the top-level
// help (an empty Command), or a command's. Words before the first option name the
// command; gpu-kill's command flags (--kill, --list ...) name theirs.
struct HelpRequest {
    std::optional<Command> command;
    std::optional<std::string> unknown;  // `gpukill help lsit`
};

std::optional<HelpRequest> help_request(const std::vector<std::string>& args) {
    if (!args.empty() && args.front() == "help") {
        if (args.size() == 1) return HelpRequest{};
        if (auto command = command_named(args[1])) return HelpRequest{.command = command};
        return HelpRequest{.unknown = args[1]};
    }
    const bool asked = std::any_of(args.begin(), args.end(), [](const std::string& arg) {
        return arg == "--help" || arg == "-h";
    });
    if (!asked) return std::nullopt;
    for (const std::string& arg : args) {
        if (auto command = command_named(arg)) return HelpRequest{.command = command};
        for (const CommandFlag& flag : command_flags()) {
            if (arg == flag.long_name || (*flag.short_name != '\0' && arg == flag.short_name)) {
                return HelpRequest{.command = flag.command};
            }
        }
        // The policy-editing flags (--guard-enforce ...) are guard's too.
        if (arg.rfind("--guard-", 0) == 0) return HelpRequest{.command = Command::guard};
    }
    return HelpRequest{};
}

int print_help(const CommandLine& cl, const HelpRequest& request) {
    if (request.unknown) return unknown_command_error(*request.unknown);
    const std::size_t width = help_width(process_environment());
    const std::string text =
        request.command
            ? command_help(command_doc(*request.command), cl.options_for(*request.command), width)
            : top_level_help(cl.common_options(), cl.compatible_forms(), width);
    std::fputs(text.c_str(), stdout);
    return exit_code::ok;
}

// agent, mcp, top and the fleet run in gpukill-interfaces (interface_commands.hpp).
bool is_interface_command(Command command, const CommandLine& cl) {
    return fleet_requested(cl.fleet) || command == Command::agent || command == Command::mcp ||
           command == Command::top;
}

std::vector<std::string> arguments(int argc, char** argv) {
    return std::vector<std::string>(argv, argv + argc);
}

// Options that belong to one command alone imply it, as in gpu-kill: the audit flags
// mean audit, `gpukill --details` lists, `gpukill --pid N --dry-run` kills. Of kill's
// options only --pid does: a selector alone (`gpukill --orphaned --batch`) must not
// become a kill nobody typed.
std::optional<Command> implied_command(const CommandLine& cl) {
    if (given(cl, "--pid")) return Command::kill;
    for (const OptionScope& scope : option_scopes()) {
        if (scope.commands.size() != 1) continue;
        const Command only = scope.commands.front();
        if (only != Command::list && only != Command::audit && only != Command::guard) continue;
        if (given(cl, scope.name)) return only;
    }
    return std::nullopt;
}

int run_command(CommandLine& cl, int argc, char** argv) {
    auto resolved = resolve_global_options(cl.global_flags, process_environment(), geteuid() == 0);
    if (!resolved) return usage_error(resolved.error().what);
    GlobalOptions& global = *resolved;
    global.output_width = stdout_width(cl.wide, process_environment());
    if (cl.output == "json") cl.list.json = true;

    // A bare decimal is the PID short form (`gpukill 1234`); any other word is a command
    // misspelt (`gpukill lsit`), not a PID to refuse.
    for (const std::string& word : cl.positional_pids) {
        if (word.empty() || word.find_first_not_of("0123456789") != std::string::npos) {
            return unknown_command_error(word);
        }
    }
    // `gpukill 1234` and `gpukill kill 1234` are --pid 1234.
    for (const std::string& pid : cl.positional_pids) cl.requests.add_value("--pid", pid);
    for (const std::string& pid : cl.kill_pids) cl.requests.add_value("--pid", pid);
    // `gpukill reset 0 1` (nvidia-smi's users type it) and `gpukill --reset 0` are --gpu.
    std::vector<std::string> reset_gpus = cl.reset_gpus;
    if (!cl.compat_reset_target.empty()) reset_gpus.push_back(cl.compat_reset_target);
    if (!reset_gpus.empty()) {
        const std::string joined = fmt::format("{}", fmt::join(reset_gpus, ","));
        const std::vector<std::string> gpu = cl.requests.values("--gpu");
        if (!gpu.empty() && gpu.front() != joined) {
            return usage_error(
                fmt::format("reset {} and --gpu {} name different GPUs", joined, gpu.front()));
        }
        cl.requests.replace_value("--gpu", joined);
    }

    std::vector<Command> chosen;
    if (cl.list_command->parsed() || cl.compat_list) chosen.push_back(Command::list);
    if (cl.kill_command->parsed() || cl.compat_kill || !cl.positional_pids.empty()) {
        chosen.push_back(Command::kill);
    }
    if (cl.doctor_command->parsed()) chosen.push_back(Command::doctor);
    if (cl.check_command->parsed()) chosen.push_back(Command::check);
    if (cl.agent_command->parsed()) chosen.push_back(Command::agent);
    if (cl.top_command->parsed()) chosen.push_back(Command::top);
    if (cl.mcp_command->parsed()) chosen.push_back(Command::mcp);
    if (cl.reset_command->parsed() || cl.compat_reset->count() > 0) {
        chosen.push_back(Command::reset);
    }
    if (cl.audit_command->parsed() || cl.compat_audit) chosen.push_back(Command::audit);
    if (guard_requested(cl.guard_cli)) chosen.push_back(Command::guard);
    if (chosen.size() > 1) {
        return usage_error(fmt::format("choose one of {} and {}", command_name(chosen[0]),
                                       command_name(chosen[1])));
    }
    if (chosen.empty()) {
        if (auto implied = implied_command(cl)) chosen.push_back(*implied);
    }
    if (chosen.empty()) {
        return usage_error("no command given (try `gpukill list`, or gpukill --help)");
    }
    const Command command = chosen.front();
    if (auto misplaced = misplaced_option(cl, command)) return usage_error(*misplaced);
    if (is_interface_command(command, cl)) {
        return run_interface_command(command, cl, global, argc, argv);
    }

    switch (command) {
        case Command::doctor:
            return run_doctor(global, cl.list.json);
        case Command::check: {
            auto request = cl.requests.request<engine::CheckRequest>();
            if (!request) return usage_error(request.error().what);
            return run_check(global, *request, cl.list.json);
        }
        case Command::kill: {
            auto request = cl.requests.request<engine::KillRequest>();
            if (!request) return usage_error(request.error().what);
            cl.kill.json = cl.list.json;
            return run_kill(global, cl.kill, std::move(*request), arguments(argc, argv));
        }
        case Command::reset: {
            auto request = cl.requests.request<engine::ResetRequest>();
            if (!request) return usage_error(request.error().what);
            cl.reset.json = cl.list.json;
            cl.reset.actor = cl.kill.actor;
            return run_reset(global, cl.reset, std::move(*request), arguments(argc, argv));
        }
        case Command::audit:
            cl.audit.json = cl.list.json;
            return run_audit(global, cl.audit, cl.requests, arguments(argc, argv));
        case Command::guard:
            cl.guard_cli.options.json = cl.list.json;
            return run_guard(global, cl.guard_cli, cl.requests, arguments(argc, argv));
        case Command::list: {
            auto request = cl.requests.request<engine::ListRequest>();
            if (!request) return usage_error(request.error().what);
            return run_list(global, cl.list, std::move(*request));
        }
        case Command::agent:
        case Command::mcp:
        case Command::top:
            break;  // interface commands, above
    }
    return exit_code::invalid_arguments;
}

int run_parsed_command(int argc, char** argv) {
    const std::vector<std::string> args(argv + std::min(argc, 1), argv + argc);
    if (!args.empty() && args.front() == kCompletionValuesCommand) {
        return run_completion_values(args);
    }
    CommandLine cl;
    if (auto help = help_request(args)) return print_help(cl, *help);
    try {
        cl.app->parse(argc, argv);
    } catch (const CLI::CallForVersion& e) {
        return cl.app->exit(e);
    } catch (const CLI::ExtrasError& e) {
        return unknown_option_error(cl, e);
    } catch (const CLI::ParseError& e) {
        return usage_error(fmt::format("{} (see gpukill --help)", parse_error_text(e.what())));
    }
    return run_command(cl, argc, argv);
}

}  // namespace

int run_cli(int argc, char** argv) {
    reserve_standard_descriptors();
    const int code = run_parsed_command(argc, argv);
    return finish_stdout(finish_json_result(argc, argv, code));
}

}  // namespace gpukill::cli
