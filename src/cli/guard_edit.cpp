#include "cli/guard_edit.hpp"

#include <CLI/CLI.hpp>

#include <sys/stat.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>

#include "cli/diagnostics.hpp"
#include "cli/engine_session.hpp"
#include "engine/config_changes.hpp"
#include "engine/outcome_codes.hpp"
#include "guard/atomic_file.hpp"
#include "guard/guard_records.hpp"
#include "guard/policy_edit.hpp"
#include "guard/policy_fields.hpp"
#include "guard/policy_yaml.hpp"
#include "host/proc_reader.hpp"
#include "model/byte_size.hpp"

namespace gpukill::cli {
namespace {

// --guard-memory-limit 8 is 8 GiB (gpu-kill's "GB"); 8G, 512M as everywhere else.
Result<std::uint64_t> memory_size(const std::string& text) {
    const bool bare = !text.empty() && text.find_first_not_of("0123456789.") == std::string::npos;
    return parse_byte_size(bare ? text + "G" : text);
}

struct PolicyText {
    std::string path;
    std::string text;  // "" when the file does not exist yet
    bool exists = false;
};

std::expected<PolicyText, int> read_policy_text(const std::string& path) {
    auto text = read_text_file(path);
    if (text) return PolicyText{path, *text, true};
    if (text.error().errno_value == ENOENT) return PolicyText{path, "", false};
    print_error(text.error().what);
    return std::unexpected(exit_code::failure);
}

// Writes the new text when it loads cleanly, and audits the change.
int install(const GlobalOptions& global, const PolicyText& policy, const std::string& text,
            const std::string& change, const std::optional<std::string>& from,
            const std::vector<std::string>& argv) {
    if (auto checked = guard::parse_policy(text, policy.path); !checked) {
        return usage_error("the change would make the policy invalid, nothing was written: " +
                           checked.error().what);
    }
    auto engine = open_engine(global, false);
    if (!engine) return engine.error();
    auto written =
        engine::write_guard_policy(**engine,
                                   engine::PolicyWrite{.path = policy.path,
                                                       .text = text,
                                                       .change = change,
                                                       .from = from,
                                                       .command = audit::shell_join(argv)},
                                   command_line_actor());
    if (!written) return print_error(written.error().what, exit_code::failure);
    fmt::print("{}: {}\n", policy.path, change);
    if (written->audit_problem) print_error("warning: " + *written->audit_problem);
    return exit_code::ok;
}

}  // namespace

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

int run_guard_edit(const GlobalOptions& global, const GuardEditOptions& o,
                   const std::optional<std::string>& policy_flag,
                   const std::vector<std::string>& argv) {
    const int operations = o.enable + o.disable + o.dry_run + o.enforce + o.print_config +
                           o.export_config + o.import_config.has_value() + o.add_user.has_value() +
                           o.remove_user.has_value() + o.add_group.has_value() +
                           o.remove_group.has_value() + o.add_gpu.has_value() +
                           o.remove_gpu.has_value();
    const bool adding = o.add_user || o.add_group || o.add_gpu;
    const bool has_settings = o.memory_limit || o.max_processes || !o.group_members.empty() ||
                              !o.allowed_users.empty() || !o.allowed_executables.empty() ||
                              o.exclusive || o.reserved_memory || o.action || o.grace_period;
    if (operations == 0) {
        return usage_error(
            "the --guard-memory-limit family needs --guard-add-user, "
            "--guard-add-group or --guard-add-gpu");
    }
    if (operations > 1) return usage_error("give one guard policy change at a time");
    if (has_settings && !adding) {
        return usage_error(
            "--guard-memory-limit and the like only go with --guard-add-user, "
            "--guard-add-group or --guard-add-gpu");
    }
    const std::string path =
        policy_flag ? *policy_flag : guard::default_policy_path(global.config_dir);
    auto file = read_policy_text(path);
    if (!file) return file.error();

    if (o.import_config) {
        auto text = read_text_file(*o.import_config);
        if (!text) {
            print_error(text.error().what);
            return exit_code::failure;
        }
        if (auto checked = guard::parse_policy(*text, *o.import_config); !checked) {
            return usage_error(checked.error().what);
        }
        return install(global, *file, *text, "imported from " + *o.import_config, *o.import_config,
                       argv);
    }
    // Every other change starts from a policy that loads: never edit a broken file blind.
    auto current = guard::parse_policy(file->text, path);
    if (!current) return usage_error(current.error().what);
    if (o.print_config || o.export_config) {
        if (!file->exists) {
            fmt::print(stderr, "gpukill: no guard policy at {}\n", path);
            return exit_code::failure;
        }
        if (o.print_config) {
            fmt::print("# {} (mode {})\n", path, guard::to_string(current->mode));
        }
        std::fputs(file->text.c_str(), stdout);
        return exit_code::ok;
    }
    if (o.enable || o.disable || o.dry_run || o.enforce) {
        guard::Mode mode = o.disable   ? guard::Mode::off
                           : o.enforce ? guard::Mode::enforce
                                       : guard::Mode::dry_run;
        if (o.enable && current->mode != guard::Mode::off) mode = current->mode;
        auto text = guard::set_mode(file->text, mode);
        if (!text) return usage_error(path + ": " + text.error().what);
        return install(global, *file, *text, fmt::format("mode {}", guard::to_string(mode)),
                       std::nullopt, argv);
    }
    if (o.remove_user || o.remove_group || o.remove_gpu) {
        const std::string section = o.remove_user ? "users" : o.remove_group ? "groups" : "gpus";
        const std::string key = o.remove_user    ? *o.remove_user
                                : o.remove_group ? *o.remove_group
                                                 : std::to_string(*o.remove_gpu);
        auto text = guard::remove_entry(file->text, section, key);
        if (!text) return usage_error(path + ": " + text.error().what);
        return install(global, *file, *text, fmt::format("{}.{} removed", section, key),
                       std::nullopt, argv);
    }
    if (!has_settings) {
        return usage_error("say what to set: --guard-memory-limit, --guard-max-processes, ...");
    }
    // The entry as it is, with the given settings over it.
    std::optional<std::uint64_t> memory;
    if (o.memory_limit) {
        auto bytes = memory_size(*o.memory_limit);
        if (!bytes) return usage_error("--guard-memory-limit: " + bytes.error().what);
        memory = *bytes;
    }
    std::optional<guard::Action> action;
    if (o.action) {
        if (*o.action == "warn") action = guard::Action::warn;
        if (*o.action == "terminate") action = guard::Action::terminate;
        if (*o.action == "kill") action = guard::Action::kill;
        if (!action) return usage_error("--guard-action must be warn, terminate or kill");
    }
    std::optional<std::chrono::seconds> grace;
    if (o.grace_period) {
        auto parsed = parse_duration(*o.grace_period);
        if (!parsed) return usage_error("--guard-grace-period: " + parsed.error().what);
        grace = *parsed;
    }
    auto apply_enforcement = [&](guard::Enforcement& e) {
        if (action) e.action = *action;
        if (grace) e.grace_period = *grace;
    };
    const guard::Enforcement& inherited = current->default_enforcement;
    std::string section;
    std::string key;
    std::string flow;
    if (o.add_user) {
        if (!o.group_members.empty() || !o.allowed_users.empty() ||
            !o.allowed_executables.empty() || o.exclusive || o.reserved_memory) {
            return usage_error(
                "--guard-add-user takes --guard-memory-limit, "
                "--guard-max-processes, --guard-action, --guard-grace-period");
        }
        guard::UserRule rule{.user = *o.add_user, .enforcement = inherited};
        for (const guard::UserRule& existing : current->users) {
            if (existing.user == *o.add_user) rule = existing;
        }
        if (memory) rule.limits.memory_bytes = memory;
        if (o.max_processes) rule.limits.max_processes = o.max_processes;
        apply_enforcement(rule.enforcement);
        section = "users";
        key = *o.add_user;
        flow = guard::user_flow(rule, inherited);
    } else if (o.add_group) {
        if (!o.allowed_users.empty() || !o.allowed_executables.empty() || o.exclusive ||
            o.reserved_memory) {
            return usage_error(
                "--guard-add-group takes --guard-group-members, "
                "--guard-memory-limit, --guard-max-processes, --guard-action, "
                "--guard-grace-period");
        }
        guard::GroupRule rule{.name = *o.add_group, .enforcement = inherited};
        for (const guard::GroupRule& existing : current->groups) {
            if (existing.name == *o.add_group) rule = existing;
        }
        if (!o.group_members.empty()) {
            rule.members = std::set<std::string>(o.group_members.begin(), o.group_members.end());
        }
        if (memory) rule.limits.memory_bytes = memory;
        if (o.max_processes) rule.limits.max_processes = o.max_processes;
        apply_enforcement(rule.enforcement);
        section = "groups";
        key = *o.add_group;
        flow = guard::group_flow(rule, inherited);
    } else {
        if (!o.group_members.empty() || o.max_processes) {
            return usage_error(
                "--guard-add-gpu takes --guard-allowed-users, "
                "--guard-allowed-executables, --guard-exclusive, "
                "--guard-reserved-memory, --guard-memory-limit (per user), "
                "--guard-action, --guard-grace-period");
        }
        guard::GpuRule rule{.index = *o.add_gpu, .enforcement = inherited};
        for (const guard::GpuRule& existing : current->gpus) {
            if (existing.index == *o.add_gpu) rule = existing;
        }
        if (!o.allowed_users.empty()) {
            rule.allowed_users =
                std::set<std::string>(o.allowed_users.begin(), o.allowed_users.end());
        }
        if (!o.allowed_executables.empty()) {
            rule.allowed_executables =
                std::set<std::string>(o.allowed_executables.begin(), o.allowed_executables.end());
        }
        if (o.exclusive) rule.exclusive = true;
        if (o.reserved_memory) {
            auto bytes = memory_size(*o.reserved_memory);
            if (!bytes) return usage_error("--guard-reserved-memory: " + bytes.error().what);
            rule.reserved_memory_bytes = *bytes;
        }
        if (memory) rule.user_memory_limit_bytes = memory;
        apply_enforcement(rule.enforcement);
        section = "gpus";
        key = std::to_string(*o.add_gpu);
        flow = guard::gpu_flow(rule, inherited);
    }
    auto text = guard::set_entry(file->text, section, key, flow);
    if (!text) return usage_error(path + ": " + text.error().what);
    return install(global, *file, *text, fmt::format("{}.{} set to {}", section, key, flow),
                   std::nullopt, argv);
}

}  // namespace gpukill::cli
