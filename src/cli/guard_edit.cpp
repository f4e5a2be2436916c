#include "cli/guard_edit.hpp"

#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <cstdio>

#include "cli/diagnostics.hpp"
#include "cli/engine_session.hpp"
#include "engine/outcome_codes.hpp"
#include "model/quoted_text.hpp"

namespace gpukill::cli {

void add_guard_edit_flags(CLI::App& app, GuardEditOptions& o, std::vector<CLI::Option*>& given) {
    const char* group = "Guard policy editing (compatible with gpu-kill)";
    auto add = [&](CLI::Option* option) { given.push_back(option->group(group)); };
    add(app.add_flag("--guard-enable", o.enable, "turn guard on (mode dry-run when it was off)"));
    add(app.add_flag("--guard-disable", o.disable, "turn guard off (mode off)"));
    add(app.add_flag("--guard-dry-run", o.dry_run, "mode dry-run: log, never act"));
    add(app.add_flag("--guard-enforce", o.enforce, "mode enforce: warn and act"));
    add(app.add_flag("--guard-config", o.print_config, "print the policy in effect"));
    add(app.add_flag("--guard-export-config", o.export_config, "write the policy to stdout"));
    add(app.add_option("--guard-import-config", o.import_config,
                       "check FILE and make it the policy")
            ->type_name("FILE"));
    add(app.add_option("--guard-add-user", o.add_user, "add or change a user's limits")
            ->type_name("USER"));
    add(app.add_option("--guard-remove-user", o.remove_user, "remove a user's entry")
            ->type_name("USER"));
    add(app.add_option("--guard-add-group", o.add_group, "add or change a group's limits")
            ->type_name("GROUP"));
    add(app.add_option("--guard-remove-group", o.remove_group, "remove a group's entry")
            ->type_name("GROUP"));
    add(app.add_option("--guard-add-gpu", o.add_gpu, "add or change a GPU's rules")
            ->type_name("GPU"));
    add(app.add_option("--guard-remove-gpu", o.remove_gpu, "remove a GPU's entry")
            ->type_name("GPU"));
    add(app.add_option("--guard-memory-limit", o.memory_limit,
                       "memory limit (a number is GiB: 8 = 8G); for a GPU, per user")
            ->type_name("SIZE"));
    add(app.add_option("--guard-max-processes", o.max_processes, "most processes on GPUs")
            ->type_name("N"));
    add(app.add_option("--guard-group-members", o.group_members, "a group's members (a,b)")
            ->type_name("USERS")
            ->delimiter(','));
    add(app.add_option("--guard-allowed-users", o.allowed_users, "a GPU's allowed users (a,b)")
            ->type_name("USERS")
            ->delimiter(','));
    add(app.add_option("--guard-allowed-executables", o.allowed_executables,
                       "a GPU's allowed executables: exact paths or names (a,b)")
            ->type_name("PROGRAMS")
            ->delimiter(','));
    add(app.add_flag("--guard-exclusive", o.exclusive, "a GPU for one user at a time"));
    add(app.add_option("--guard-reserved-memory", o.reserved_memory,
                       "memory of a GPU kept for its allowed users")
            ->type_name("SIZE"));
    add(app.add_option("--guard-action", o.action, "warn, terminate or kill")->type_name("ACTION"));
    add(app.add_option("--guard-grace-period", o.grace_period, "30s, 5m, 1h...")
            ->type_name("DURATION"));
}

bool wants_guard_edit(const std::vector<CLI::Option*>& edit_options) {
    for (const CLI::Option* option : edit_options) {
        if (option->count() > 0) return true;
    }
    return false;
}

int run_guard_edit(const GlobalOptions& global, const GuardEditOptions& options,
                   const std::optional<std::string>& policy_flag,
                   const std::vector<std::string>& argv) {
    auto engine = open_engine(global, false);
    if (!engine) return engine.error();
    auto edited =
        engine::edit_policy(**engine, policy_flag, options, shell_join(argv), command_line_actor());
    if (!edited) return report_error(edited.error());
    if (edited->printed) {
        std::fputs(edited->printed->c_str(), stdout);
        return exit_code::ok;
    }
    fmt::print("{}: {}\n", edited->path, edited->change.value_or("unchanged"));
    if (edited->audit_problem) print_error("warning: " + *edited->audit_problem);
    return exit_code::ok;
}

}  // namespace gpukill::cli
