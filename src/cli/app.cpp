#include "cli/app.hpp"

#include <unistd.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/doctor.hpp"
#include "cli/exit_codes.hpp"
#include "cli/global_options.hpp"
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

    // Subcommand options fall through to the app, so `gpukill list --json` and
    // `gpukill --list --json` are the same parse.
    CLI::App* list_command = app.add_subcommand("list", "list GPUs and the processes holding them");
    list_command->fallthrough();
    CLI::App* doctor_command =
        app.add_subcommand("doctor", "check backends, drivers and visibility; say what to fix");
    bool doctor_json = false;
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

    if (doctor_command->parsed()) return run_doctor(global, doctor_json);
    if (list_command->parsed() || compat_list) return run_list(global, list);
    fmt::print(stderr, "gpukill: no command given (try `gpukill list` or gpukill --help)\n");
    return exit_code::invalid_arguments;
}

}  // namespace gpukill::cli
