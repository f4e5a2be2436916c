#include "cli/app.hpp"

#include <unistd.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <optional>
#include <vector>

#include "cli/audit_command.hpp"
#include "cli/check_command.hpp"
#include "cli/doctor.hpp"
#include "cli/global_options.hpp"
#include "cli/guard_cli.hpp"
#include "cli/kill_command.hpp"
#include "cli/list_command.hpp"
#include "cli/reset_command.hpp"
#include "cli/standard_streams.hpp"
#include "cli/suggest.hpp"
#include "cli/version.hpp"
#include "engine/outcome_codes.hpp"
#include "model/human_format.hpp"

namespace gpukill::cli {
namespace {

void add_global_flags(CLI::App& app, GlobalFlags& flags) {
    const char* group = "Host and state locations";
    app.add_option("--procfs", flags.procfs, "procfs root (GPUKILL_PROCFS, default /proc)")
        ->group(group);
    app.add_option("--sysfs", flags.sysfs, "sysfs root (GPUKILL_SYSFS, default /sys)")
        ->group(group);
    app.add_option("--devfs", flags.devfs, "device root (GPUKILL_DEVFS, default /dev)")
        ->group(group);
    app.add_option("--nvml-library", flags.nvml_library,
                   "NVML library to load (GPUKILL_NVML_LIBRARY, default libnvidia-ml.so.1)")
        ->group(group);
    app.add_option("--state-dir", flags.state_dir,
                   "state directory (GPUKILL_STATE_DIR; /var/lib/gpukill as root, else "
                   "$XDG_STATE_HOME/gpukill)")
        ->group(group);
    app.add_option("--config-dir", flags.config_dir,
                   "configuration directory (GPUKILL_CONFIG_DIR; /etc/gpukill as root, else "
                   "$XDG_CONFIG_HOME/gpukill)")
        ->group(group);
}

void add_list_flags(CLI::App& app, ListOptions& list, std::string& output) {
    const char* group = "Listing";
    app.add_flag("--details", list.details, "one row per process")->group(group);
    app.add_flag("--json", list.json, "one JSON document (schema in docs/JSON.md)")->group(group);
    app.add_option("--output,-o", output, "table or json")
        ->check(CLI::IsMember({"table", "json"}))
        ->group(group);
    app.add_option("--gpu,-g", list.gpu, "only this GPU: index, UUID or PCI bus id")->group(group);
    app.add_option("--vendor", list.vendor, "nvidia, amd, intel or all (default all)")
        ->group(group);
    app.add_flag("--watch,-w", list.watch, "refresh until interrupted")->group(group);
    app.add_option("--interval", list.interval_seconds, "seconds between refreshes (default 2)")
        ->group(group);
}

void add_kill_flags(CLI::App& app, KillOptions& kill) {
    const char* group = "Killing (gpukill kill, or gpukill --kill)";
    app.add_option("--pid,-p", kill.pids, "a process to stop (repeatable)")->group(group);
    app.add_option("--filter", kill.filter, "regular expression on name and command line")
        ->group(group);
    app.add_option("--user,-u", kill.user, "processes of this user (exact name or uid)")
        ->group(group);
    app.add_option("--container", kill.container,
                   "processes in this container (id prefix or pod UID)")
        ->group(group);
    app.add_option("--min-memory", kill.min_memory, "holding at least this much GPU memory (4G)")
        ->group(group);
    app.add_flag("--orphaned", kill.orphaned, "only processes whose parent died")->group(group);
    app.add_flag("--unlisted", kill.unlisted,
                 "only processes holding a GPU device file but absent from the driver's list")
        ->group(group);
    app.add_flag("--tree", kill.tree, "also every descendant of each target")->group(group);
    app.add_flag("--group", kill.group, "also every process in each target's process group")
        ->group(group);
    app.add_flag("--batch", kill.batch, "act on what a many-process selector matched")
        ->group(group);
    app.add_flag("--any-process", kill.any_process,
                 "a named PID need not hold a GPU (without it, one that holds none and has no "
                 "descendant holding one is refused)")
        ->group(group);
    app.add_flag("--force,-f", kill.force, "SIGKILL what survives the first signal")->group(group);
    app.add_option("--signal,-s", kill.signal, "first signal (default SIGTERM; SIGINT for PyTorch)")
        ->group(group);
    app.add_option("--timeout-secs,-t", kill.timeout_seconds,
                   "seconds to wait after each signal (default 5)")
        ->group(group);
    app.add_option("--verify-timeout", kill.verify_timeout_seconds,
                   "seconds to wait for the memory to come back (default 10)")
        ->group(group);
    app.add_flag("--dry-run,--safe", kill.dry_run, "print the plan, signal nothing")->group(group);
}

void add_reset_flags(CLI::App& app, ResetOptions& reset) {
    const char* group = "Resetting (gpukill reset, or gpukill --reset)";
    app.add_flag("--all", reset.all, "reset every GPU")->group(group);
    app.add_option("--nvidia-smi", reset.nvidia_smi,
                   "nvidia-smi to reset NVIDIA GPUs with (GPUKILL_NVIDIA_SMI, default PATH)")
        ->group(group);
}

void add_audit_flags(CLI::App& app, AuditOptions& audit) {
    const char* group = "Auditing (gpukill audit, or gpukill --audit)";
    app.add_option("--audit-hours", audit.hours, "hours of history to look at (default 24)")
        ->group(group);
    app.add_option("--audit-user", audit.user, "only this user (exact name or uid)")->group(group);
    app.add_option("--audit-process", audit.process,
                   "only processes whose name or command matches this regular expression")
        ->group(group);
    app.add_flag("--audit-summary", audit.summary,
                 "GPU-hours and peak memory per user and process, busiest GPUs, by hour")
        ->group(group);
    app.add_flag("--actions", audit.actions, "the actions gpukill took (kills, resets)")
        ->group(group);
    app.add_flag("--rogue", audit.rogue, "look for miners and other rogue processes")->group(group);
    app.add_flag("--rogue-config", audit.rogue_config_print,
                 "print the rogue-detection configuration in effect")
        ->group(group);
    app.add_flag("--rogue-export-config", audit.rogue_config_export,
                 "write the rogue-detection configuration in effect to stdout (YAML)")
        ->group(group);
    app.add_option("--rogue-import-config", audit.rogue_config_import,
                   "check this file and make it the rogue-detection configuration")
        ->group(group);
    app.add_option("--rogue-config-file", audit.rogue_config_file,
                   "use this rogue-detection configuration instead of CONFIG_DIR/rogue.yaml")
        ->group(group);
}

enum class Command { list, kill, doctor, reset, audit, guard, check };

const char* command_name(Command command) {
    switch (command) {
        case Command::list:
            return "list";
        case Command::kill:
            return "kill";
        case Command::doctor:
            return "doctor";
        case Command::reset:
            return "reset";
        case Command::audit:
            return "audit";
        case Command::guard:
            return "guard";
        case Command::check:
            return "check";
    }
    return "?";
}

// Options that belong to some commands only; given to another they would be silently
// ignored, so they are refused instead. Options not listed apply everywhere.
struct OptionScope {
    const char* name;
    std::vector<Command> commands;
};

const std::vector<OptionScope>& option_scopes() {
    using enum Command;
    static const std::vector<OptionScope> scopes = {
        {"--details", {list}},
        {"--watch", {list}},
        {"--interval", {list}},
        {"--vendor", {list}},
        {"--gpu", {list, kill, reset}},
        {"--json", {list, kill, reset, audit, guard}},
        {"--output", {list, kill, reset, audit, guard}},
        {"--pid", {kill}},
        {"--filter", {kill}},
        {"--user", {kill}},
        {"--container", {kill}},
        {"--min-memory", {kill}},
        {"--orphaned", {kill}},
        {"--unlisted", {kill}},
        {"--tree", {kill}},
        {"--group", {kill}},
        {"--batch", {kill}},
        {"--any-process", {kill}},
        {"--signal", {kill}},
        {"--force", {kill, reset}},
        {"--timeout-secs", {kill, reset}},
        {"--verify-timeout", {kill, reset}},
        {"--dry-run", {kill, reset}},
        {"--all", {reset}},
        {"--nvidia-smi", {reset}},
        {"--audit-hours", {audit}},
        {"--audit-user", {audit}},
        {"--audit-process", {audit}},
        {"--audit-summary", {audit}},
        {"--actions", {audit}},
        {"--rogue", {audit}},
        {"--rogue-config", {audit}},
        {"--rogue-export-config", {audit}},
        {"--rogue-import-config", {audit}},
        {"--rogue-config-file", {audit}},
    };
    return scopes;
}

// The first option given that does not apply to `command`, if any.
std::optional<std::string> misplaced_option(CLI::App& app, Command command) {
    for (const OptionScope& scope : option_scopes()) {
        if (app.get_option(scope.name)->count() == 0) continue;
        if (std::find(scope.commands.begin(), scope.commands.end(), command) ==
            scope.commands.end()) {
            return fmt::format("{} does not apply to {}", scope.name, command_name(command));
        }
    }
    return std::nullopt;
}

const std::vector<std::string>& command_words() {
    static const std::vector<std::string> words = {"list",  "kill",   "reset", "audit",
                                                   "guard", "doctor", "check"};
    return words;
}

int unknown_command_error(const std::string& word) {
    if (auto near = closest(word, command_words())) {
        fmt::print(stderr, "gpukill: unknown command '{}'; did you mean '{}'?\n", printable(word),
                   *near);
    } else {
        fmt::print(stderr,
                   "gpukill: unknown command '{}' (commands: list, kill, reset, audit, guard, "
                   "doctor, check; a PID is a number)\n",
                   printable(word));
    }
    return exit_code::invalid_arguments;
}

// Every long option of the app and its commands: what a mistyped one is compared with.
std::vector<std::string> option_names(const CLI::App& app) {
    std::vector<std::string> names;
    const auto add = [&](const CLI::App& owner) {
        for (const CLI::Option* option : owner.get_options()) {
            for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
        }
    };
    add(app);
    for (const CLI::App* command : app.get_subcommands({})) add(*command);
    return names;
}

int unknown_option_error(const CLI::App& app, const CLI::ExtrasError& error) {
    const std::vector<std::string> names = option_names(app);
    for (const std::string& extra : app.remaining()) {
        const std::string word = extra.substr(0, extra.find('='));
        if (word.rfind("--", 0) != 0) continue;
        if (auto near = closest(word, names)) {
            fmt::print(stderr, "gpukill: unknown option '{}'; did you mean '{}'?\n",
                       printable(word), *near);
        } else {
            fmt::print(stderr, "gpukill: unknown option '{}' (see gpukill --help)\n",
                       printable(word));
        }
        return exit_code::invalid_arguments;
    }
    fmt::print(stderr, "gpukill: {} (see gpukill --help)\n", error.what());
    return exit_code::invalid_arguments;
}

std::vector<std::string> arguments(int argc, char** argv) {
    return std::vector<std::string>(argv, argv + argc);
}

int run_parsed_command(int argc, char** argv) {
    CLI::App app{"gpukill: find what holds a GPU and give it back safely", "gpukill"};
    app.set_version_flag("--version", version_line());
    app.require_subcommand(0, 1);

    GlobalFlags global_flags;
    add_global_flags(app, global_flags);
    ListOptions list;
    std::string output;
    bool compat_list = false;
    app.add_flag("--list,-l", compat_list, "list GPUs and processes (same as `gpukill list`)")
        ->group("Listing");
    add_list_flags(app, list, output);
    KillOptions kill;
    bool compat_kill = false;
    app.add_flag("--kill,-k", compat_kill, "stop processes (same as `gpukill kill`)")
        ->group("Killing (gpukill kill, or gpukill --kill)");
    add_kill_flags(app, kill);
    ResetOptions reset;
    std::string compat_reset_target;
    CLI::Option* compat_reset =
        app.add_option("--reset,-r", compat_reset_target,
                       "reset a GPU (same as `gpukill reset`); `--reset G` names the GPU")
            ->expected(0, 1)
            ->group("Resetting (gpukill reset, or gpukill --reset)");
    add_reset_flags(app, reset);
    AuditOptions audit;
    bool compat_audit = false;
    app.add_flag("--audit", compat_audit, "usage history and actions (same as `gpukill audit`)")
        ->group("Auditing (gpukill audit, or gpukill --audit)");
    add_audit_flags(app, audit);
    GuardCli guard_cli;
    add_guard_cli(app, guard_cli);
    std::vector<std::string> positional_pids;
    app.add_option("pids", positional_pids, "PIDs to stop (short form of gpukill kill --pid)");

    // Subcommand options fall through to the app, so `gpukill list --json` and
    // `gpukill --list --json` are the same parse.
    CLI::App* list_command = app.add_subcommand("list", "list GPUs and the processes holding them");
    list_command->fallthrough();
    CLI::App* doctor_command =
        app.add_subcommand("doctor", "check backends, drivers and visibility; say what to fix");
    bool doctor_json = false;
    CLI::App* kill_command =
        app.add_subcommand("kill", "stop processes holding GPUs and prove the memory came back");
    kill_command->fallthrough();
    std::vector<std::string> kill_pids;
    kill_command->add_option("pids", kill_pids, "PIDs to stop");
    doctor_command->add_flag("--json", doctor_json, "one JSON document");
    CLI::App* reset_command = app.add_subcommand(
        "reset", "reset a GPU when nothing else gives its memory back (root only)");
    reset_command->fallthrough();
    std::vector<std::string> reset_gpus;  // `gpukill reset 0`, as nvidia-smi users type it
    reset_command->add_option("gpus", reset_gpus, "the GPUs to reset (index, UUID or bus id)");
    CLI::App* audit_command =
        app.add_subcommand("audit", "usage history, actions taken and rogue-process detection");
    audit_command->fallthrough();
    CheckOptions check;
    CLI::App* check_command = app.add_subcommand(
        "check", "one verdict on the GPUs for CI and probes: exit 0 clean, 1 problem, 2 unknown");
    check_command->add_flag("--json", check.json, "one JSON document");
    check_command->add_option("--unaccounted-threshold", check.unaccounted_threshold,
                              "memory no listed process accounts for, per GPU, above which it "
                              "is a problem (default 256M)");
    check_command->add_option("--allow-user", check.allowed_users,
                              "a holder of another user is a problem (repeatable)");
    check_command->add_flag("--idle", check.idle, "any process holding a GPU is a problem");
    check_command->add_flag("--no-rogue", check.no_rogue, "do not run rogue detection");
    check_command->add_flag("--no-orphans", check.no_orphans, "orphaned holders are not a problem");

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ExtrasError& e) {
        return unknown_option_error(app, e);
    } catch (const CLI::ParseError& e) {
        fmt::print(stderr, "gpukill: {} (see gpukill --help)\n", e.what());
        return exit_code::invalid_arguments;
    }

    auto resolved = resolve_global_options(global_flags, process_environment(), geteuid() == 0);
    if (!resolved) {
        fmt::print(stderr, "gpukill: {}\n", resolved.error().what);
        return exit_code::invalid_arguments;
    }
    const GlobalOptions& global = *resolved;
    if (output == "json") list.json = true;

    // A bare decimal is the PID short form (`gpukill 1234`); any other word is a command
    // misspelt (`gpukill lsit`), not a PID to refuse.
    for (const std::string& word : positional_pids) {
        if (word.empty() || word.find_first_not_of("0123456789") != std::string::npos) {
            return unknown_command_error(word);
        }
    }
    if (!reset_gpus.empty()) {
        std::string joined;
        for (const std::string& gpu : reset_gpus) joined += (joined.empty() ? "" : ",") + gpu;
        if (list.gpu && *list.gpu != joined) {
            fmt::print(stderr, "gpukill: reset {} and --gpu {} name different GPUs\n", joined,
                       *list.gpu);
            return exit_code::invalid_arguments;
        }
        list.gpu = joined;
    }

    std::vector<Command> chosen;
    if (list_command->parsed() || compat_list) chosen.push_back(Command::list);
    if (kill_command->parsed() || compat_kill || !positional_pids.empty()) {
        chosen.push_back(Command::kill);
    }
    if (doctor_command->parsed()) chosen.push_back(Command::doctor);
    if (check_command->parsed()) chosen.push_back(Command::check);
    if (reset_command->parsed() || compat_reset->count() > 0) chosen.push_back(Command::reset);
    if (audit_command->parsed() || compat_audit) chosen.push_back(Command::audit);
    if (guard_requested(guard_cli)) chosen.push_back(Command::guard);
    if (chosen.size() > 1) {
        fmt::print(stderr, "gpukill: choose one of {} and {}\n", command_name(chosen[0]),
                   command_name(chosen[1]));
        return exit_code::invalid_arguments;
    }
    // Audit flags alone (`gpukill --audit-summary`) mean audit, as in gpu-kill.
    if (chosen.empty()) {
        for (const char* name :
             {"--audit-hours", "--audit-user", "--audit-process", "--audit-summary", "--actions",
              "--rogue", "--rogue-config", "--rogue-export-config", "--rogue-import-config",
              "--rogue-config-file"}) {
            if (app.get_option(name)->count() > 0) {
                chosen.push_back(Command::audit);
                break;
            }
        }
    }
    // Options that belong to one command alone imply it, as the audit flags do:
    // `gpukill --details` lists, `gpukill --force --pid N --dry-run` kills.
    if (chosen.empty()) {
        if (!kill.pids.empty()) {
            chosen.push_back(Command::kill);
        } else if (app.get_option("--details")->count() > 0) {
            chosen.push_back(Command::list);
        }
    }
    if (chosen.empty()) {
        fmt::print(stderr, "gpukill: no command given (try `gpukill list` or gpukill --help)\n");
        return exit_code::invalid_arguments;
    }
    Command command = chosen.front();
    if (auto misplaced = misplaced_option(app, command)) {
        fmt::print(stderr, "gpukill: {}\n", *misplaced);
        return exit_code::invalid_arguments;
    }

    switch (command) {
        case Command::doctor:
            return run_doctor(global, doctor_json);
        case Command::check:
            return run_check(global, check);
        case Command::kill:
            kill.pids.insert(kill.pids.end(), positional_pids.begin(), positional_pids.end());
            kill.pids.insert(kill.pids.end(), kill_pids.begin(), kill_pids.end());
            kill.gpu = list.gpu;
            kill.json = list.json;
            return run_kill(global, kill, arguments(argc, argv));
        case Command::reset:
            if (!compat_reset_target.empty()) {
                if (list.gpu && *list.gpu != compat_reset_target) {
                    fmt::print(stderr, "gpukill: --reset {} and --gpu {} name different GPUs\n",
                               compat_reset_target, *list.gpu);
                    return exit_code::invalid_arguments;
                }
                reset.gpu = compat_reset_target;
            } else {
                reset.gpu = list.gpu;
            }
            reset.force = kill.force;
            reset.dry_run = kill.dry_run;
            reset.json = list.json;
            reset.timeout_seconds = kill.timeout_seconds;
            reset.verify_timeout_seconds = kill.verify_timeout_seconds;
            return run_reset(global, reset, arguments(argc, argv));
        case Command::audit:
            audit.json = list.json;
            return run_audit(global, audit, arguments(argc, argv));
        case Command::guard:
            guard_cli.options.json = list.json;
            return run_guard(global, guard_cli, arguments(argc, argv));
        case Command::list:
            return run_list(global, list);
    }
    return exit_code::invalid_arguments;
}

}  // namespace

int run_cli(int argc, char** argv) {
    reserve_standard_descriptors();
    return finish_stdout(run_parsed_command(argc, argv));
}

}  // namespace gpukill::cli
