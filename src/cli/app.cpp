#include "cli/app.hpp"

#include <unistd.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/doctor.hpp"
#include "cli/exit_codes.hpp"
#include "cli/global_options.hpp"
#include "cli/kill_command.hpp"
#include "cli/list_command.hpp"

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

std::vector<std::string> arguments(int argc, char** argv) {
    return std::vector<std::string>(argv, argv + argc);
}

}  // namespace

int run_cli(int argc, char** argv) {
    CLI::App app{"gpukill: find what holds a GPU and give it back safely", "gpukill"};
    app.set_version_flag("--version", std::string("gpukill ") + GPUKILL_VERSION);
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

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        fmt::print(stderr, "gpukill: {} (see gpukill --help)\n", e.what());
        return exit_code::invalid_arguments;
    }

    GlobalOptions global =
        resolve_global_options(global_flags, process_environment(), geteuid() == 0);
    if (output == "json") list.json = true;

    bool wants_kill = kill_command->parsed() || compat_kill || !positional_pids.empty();
    // Kill options given to list or doctor would be silently ignored: say so instead.
    if (!wants_kill) {
        for (const char* name :
             {"--pid", "--filter", "--user", "--container", "--min-memory", "--orphaned",
              "--unlisted", "--tree", "--group", "--batch", "--force", "--signal", "--timeout-secs",
              "--verify-timeout", "--dry-run"}) {
            if (app.get_option(name)->count() > 0) {
                fmt::print(stderr, "gpukill: {} only applies to kill\n", name);
                return exit_code::invalid_arguments;
            }
        }
    }
    if (wants_kill && doctor_command->parsed()) {
        fmt::print(stderr, "gpukill: choose one of doctor and kill\n");
        return exit_code::invalid_arguments;
    }
    if (doctor_command->parsed() && !wants_kill) return run_doctor(global, doctor_json);
    if (wants_kill && (list_command->parsed() || compat_list)) {
        fmt::print(stderr, "gpukill: choose one of list and kill\n");
        return exit_code::invalid_arguments;
    }
    if (wants_kill) {
        kill.pids.insert(kill.pids.end(), positional_pids.begin(), positional_pids.end());
        kill.pids.insert(kill.pids.end(), kill_pids.begin(), kill_pids.end());
        kill.gpu = list.gpu;
        kill.json = list.json;
        return run_kill(global, kill, arguments(argc, argv));
    }
    if (list_command->parsed() || compat_list) return run_list(global, list);
    fmt::print(stderr, "gpukill: no command given (try `gpukill list` or gpukill --help)\n");
    return exit_code::invalid_arguments;
}

}  // namespace gpukill::cli
