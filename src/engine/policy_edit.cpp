#include "engine/policy_edit.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <set>

#include "engine/config_changes.hpp"
#include "engine/guard_test.hpp"
#include "engine/starter_policy.hpp"
#include "guard/policy_edit.hpp"
#include "guard/policy_fields.hpp"
#include "guard/policy_yaml.hpp"
#include "host/proc_reader.hpp"
#include "model/byte_size.hpp"
#include "model/guard_policy.hpp"
#include "model/yaml_reader.hpp"

namespace gpukill::engine {
namespace {

std::unexpected<Error> invalid(const std::string& why) {
    return fail(ErrorCategory::invalid_input, why);
}

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

Result<PolicyText> read_policy_text(const std::string& path) {
    auto text = read_text_file(path);
    if (text) return PolicyText{path, *text, true};
    if (text.error().errno_value == ENOENT) return PolicyText{path, "", false};
    return std::unexpected(as(ErrorCategory::unavailable, text.error()));
}

// Writes a new text when it loads cleanly, and audits the change.
struct Installer {
    Engine& engine;
    const PolicyText& policy;
    const std::string& command;
    const Actor& actor;

    Result<PolicyEditOutcome> operator()(const std::string& text, const std::string& change,
                                         const std::optional<std::string>& from) const {
        if (auto checked = guard::parse_policy(text, policy.path); !checked) {
            return invalid("the change would make the policy invalid, nothing was written: " +
                           checked.error().what);
        }
        auto written = write_guard_policy(engine,
                                          PolicyWrite{.path = policy.path,
                                                      .text = text,
                                                      .change = change,
                                                      .from = from,
                                                      .command = command},
                                          actor);
        if (!written) return std::unexpected(written.error());
        return PolicyEditOutcome{.path = policy.path,
                                 .change = change,
                                 .printed = std::nullopt,
                                 .audit_problem = written->audit_problem};
    }
};

}  // namespace

Result<PolicyEditOutcome> edit_policy(Engine& engine, const std::optional<std::string>& policy_path,
                                      const PolicyEditRequest& request, const std::string& command,
                                      const Actor& actor) {
    const PolicyEditRequest& o = request;
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
        return invalid(
            "the --guard-memory-limit family needs --guard-add-user, "
            "--guard-add-group or --guard-add-gpu");
    }
    if (operations > 1) return invalid("give one guard policy change at a time");
    if (has_settings && !adding) {
        return invalid(
            "--guard-memory-limit and the like only go with --guard-add-user, "
            "--guard-add-group or --guard-add-gpu");
    }
    const std::string path =
        policy_path ? *policy_path : guard::default_policy_path(engine.config().config_dir);
    auto file = read_policy_text(path);
    if (!file) return std::unexpected(file.error());
    const Installer install{engine, *file, command, actor};

    if (o.import_config) {
        auto text = read_text_file(*o.import_config);
        if (!text) return std::unexpected(as(ErrorCategory::unavailable, text.error()));
        if (auto checked = guard::parse_policy(*text, *o.import_config); !checked) {
            return invalid(checked.error().what);
        }
        return install(*text, "imported from " + *o.import_config, *o.import_config);
    }
    // Every other change starts from a policy that loads: never edit a broken file blind.
    auto current = guard::parse_policy(file->text, path);
    if (!current) return invalid(current.error().what);
    if (o.print_config || o.export_config) {
        if (!file->exists) return fail(ErrorCategory::unavailable, "no guard policy at " + path);
        std::string printed =
            o.print_config ? fmt::format("# {} (mode {})\n", path, guard::to_string(current->mode))
                           : std::string();
        return PolicyEditOutcome{.path = path,
                                 .change = std::nullopt,
                                 .printed = printed + file->text,
                                 .audit_problem = std::nullopt};
    }
    if (o.enable || o.disable || o.dry_run || o.enforce) {
        guard::Mode mode = o.disable   ? guard::Mode::off
                           : o.enforce ? guard::Mode::enforce
                                       : guard::Mode::dry_run;
        if (o.enable && current->mode != guard::Mode::off) mode = current->mode;
        auto text = guard::set_mode(file->text, mode);
        if (!text) return invalid(path + ": " + text.error().what);
        return install(*text, fmt::format("mode {}", guard::to_string(mode)), std::nullopt);
    }
    if (o.remove_user || o.remove_group || o.remove_gpu) {
        const std::string section = o.remove_user ? "users" : o.remove_group ? "groups" : "gpus";
        const std::string key = o.remove_user    ? *o.remove_user
                                : o.remove_group ? *o.remove_group
                                                 : std::to_string(*o.remove_gpu);
        auto text = guard::remove_entry(file->text, section, key);
        if (!text) return invalid(path + ": " + text.error().what);
        return install(*text, fmt::format("{}.{} removed", section, key), std::nullopt);
    }
    if (!has_settings) {
        return invalid("say what to set: --guard-memory-limit, --guard-max-processes, ...");
    }
    // The entry as it is, with the given settings over it.
    std::optional<std::uint64_t> memory;
    if (o.memory_limit) {
        auto bytes = memory_size(*o.memory_limit);
        if (!bytes) return invalid("--guard-memory-limit: " + bytes.error().what);
        memory = *bytes;
    }
    std::optional<guard::Action> action;
    if (o.action) {
        if (*o.action == "warn") action = guard::Action::warn;
        if (*o.action == "terminate") action = guard::Action::terminate;
        if (*o.action == "kill") action = guard::Action::kill;
        if (!action) return invalid("--guard-action must be warn, terminate or kill");
    }
    std::optional<std::chrono::seconds> grace;
    if (o.grace_period) {
        auto parsed = parse_duration(*o.grace_period);
        if (!parsed) return invalid("--guard-grace-period: " + parsed.error().what);
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
            return invalid(
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
            return invalid(
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
            return invalid(
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
            if (!bytes) return invalid("--guard-reserved-memory: " + bytes.error().what);
            rule.reserved_memory_bytes = *bytes;
        }
        if (memory) rule.user_memory_limit_bytes = memory;
        apply_enforcement(rule.enforcement);
        section = "gpus";
        key = std::to_string(*o.add_gpu);
        flow = guard::gpu_flow(rule, inherited);
    }
    auto text = guard::set_entry(file->text, section, key, flow);
    if (!text) return invalid(path + ": " + text.error().what);
    return install(*text, fmt::format("{}.{} set to {}", section, key, flow), std::nullopt);
}

Result<PolicyEditOutcome> init_policy(Engine& engine, const std::optional<std::string>& policy_path,
                                      const std::string& command, const Actor& actor) {
    const std::string path =
        policy_path ? *policy_path : guard::default_policy_path(engine.config().config_dir);
    const std::string text(starter_policy_text());
    if (auto checked = guard::parse_policy(text, path); !checked) {
        return fail(ErrorCategory::internal,
                    "the built-in starter policy does not load: " + checked.error().what);
    }
    const std::string change = "created from the starter policy (mode dry-run)";
    auto written = write_guard_policy(engine,
                                      PolicyWrite{.path = path,
                                                  .text = text,
                                                  .change = change,
                                                  .from = std::nullopt,
                                                  .command = command,
                                                  .create_only = true},
                                      actor);
    if (!written) {
        if (written.error().category == ErrorCategory::conflict) {
            return fail(ErrorCategory::conflict,
                        fmt::format("{} exists; guard init never overwrites a policy (check it "
                                    "with `gpukill guard check {}`, edit it, or remove it first)",
                                    path, path));
        }
        return std::unexpected(written.error());
    }
    return PolicyEditOutcome{.path = path,
                             .change = change,
                             .printed = std::nullopt,
                             .audit_problem = written->audit_problem};
}

Result<PolicySummary> check_policy_file(const std::string& path) {
    auto policy = guard::load_policy_file(path);
    if (!policy) {
        if (policy.error().errno_value == ENOENT) {
            return fail(ErrorCategory::unavailable, missing_policy_message(path));
        }
        return std::unexpected(policy.error());
    }
    return PolicySummary{.mode = guard::to_string(policy->mode),
                         .users = policy->users.size(),
                         .groups = policy->groups.size(),
                         .gpus = policy->gpus.size(),
                         .windows = policy->windows.size(),
                         .rules = policy->rules.size(),
                         .projects = policy->projects.size(),
                         .contents = guard::policy_contents(*policy)};
}

}  // namespace gpukill::engine
