// guard.yaml's named sections: users, groups and gpus entries, and protected.
#include <fmt/format.h>

#include <optional>

#include "config/protected_list_file.hpp"
#include "guard/policy_sections.hpp"

namespace gpukill::guard::sections {
namespace {

bool is_enforcement_key(const std::string& key) {
    return key == "action" || key == "grace_period";
}
bool is_limit_key(const std::string& key) {
    return key == "memory_limit" || key == "max_processes";
}

}  // namespace

Result<UserRule> read_user(const YamlReader& fields, const std::string& user,
                           const YAML::Node& key_node, const YAML::Node& map,
                           const Enforcement& inherited) {
    UserRule rule{.user = user, .enforcement = inherited, .mark = mark_of(key_node)};
    const std::string where = "users." + user;
    std::optional<YAML::Node> blocked_node;
    auto read = fields.for_each_key(
        map, where,
        {"memory_limit", "max_processes", "allowed_gpus", "blocked_gpus", "action", "grace_period"},
        [&](const std::string& key, const YAML::Node&, const YAML::Node& value) -> Result<void> {
            if (is_limit_key(key)) return read_limit_key(fields, key, value, where, rule.limits);
            if (is_enforcement_key(key)) {
                return read_enforcement_key(fields, key, value, where, rule.enforcement);
            }
            auto gpus = fields.gpu_indices(value, where + "." + key);
            if (!gpus) return std::unexpected(gpus.error());
            if (key == "allowed_gpus") {
                rule.allowed_gpus = *gpus;
            } else {
                rule.blocked_gpus = *gpus;
                blocked_node.emplace(value);
            }
            return {};
        });
    if (!read) return std::unexpected(read.error());
    // A GPU both allowed and blocked: which one the admin meant cannot be guessed.
    if (rule.allowed_gpus && blocked_node) {
        for (const YAML::Node& item : *blocked_node) {
            const unsigned gpu = item.as<unsigned>();
            if (rule.allowed_gpus->contains(gpu)) {
                return fields.error(
                    item, fmt::format("{}: GPU {} is both allowed and blocked", where, gpu));
            }
        }
    }
    return rule;
}

Result<GroupRule> read_group(const YamlReader& fields, const std::string& name,
                             const YAML::Node& key_node, const YAML::Node& map,
                             const Enforcement& inherited) {
    GroupRule rule{.name = name, .enforcement = inherited, .mark = mark_of(key_node)};
    const std::string where = "groups." + name;
    auto read = fields.for_each_key(
        map, where, {"members", "memory_limit", "max_processes", "action", "grace_period"},
        [&](const std::string& key, const YAML::Node&, const YAML::Node& value) -> Result<void> {
            if (is_limit_key(key)) return read_limit_key(fields, key, value, where, rule.limits);
            if (is_enforcement_key(key)) {
                return read_enforcement_key(fields, key, value, where, rule.enforcement);
            }
            auto members = fields.names(value, where + ".members");
            if (!members) return std::unexpected(members.error());
            rule.members = *members;
            return {};
        });
    if (!read) return std::unexpected(read.error());
    if (rule.limits.empty()) {
        return fields.error(key_node, fmt::format("{} sets no limit (memory_limit or "
                                                  "max_processes)",
                                                  where));
    }
    return rule;
}

Result<GpuRule> read_gpu(const YamlReader& fields, const std::string& key_text,
                         const YAML::Node& key_node, const YAML::Node& map,
                         const Enforcement& inherited) {
    auto index = fields.integer(key_node, "gpus: a GPU index", kMaxGpuIndex);
    if (!index) return std::unexpected(index.error());
    GpuRule rule{.index = static_cast<unsigned>(*index),
                 .enforcement = inherited,
                 .mark = mark_of(key_node)};
    const std::string where = "gpus." + key_text;
    auto read = fields.for_each_key(
        map, where,
        {"allowed_users", "allowed_executables", "reserved_memory", "user_memory_limit",
         "exclusive", "action", "grace_period"},
        [&](const std::string& key, const YAML::Node&, const YAML::Node& value) -> Result<void> {
            const std::string name = where + "." + key;
            if (is_enforcement_key(key)) {
                return read_enforcement_key(fields, key, value, where, rule.enforcement);
            }
            if (key == "allowed_users" || key == "allowed_executables") {
                auto names = fields.names(value, name);
                if (!names) return std::unexpected(names.error());
                (key == "allowed_users" ? rule.allowed_users : rule.allowed_executables) = *names;
                return {};
            }
            if (key == "exclusive") {
                auto flag = fields.boolean(value, name);
                if (!flag) return std::unexpected(flag.error());
                rule.exclusive = *flag;
                return {};
            }
            auto bytes = fields.size(value, name);
            if (!bytes) return std::unexpected(bytes.error());
            (key == "reserved_memory" ? rule.reserved_memory_bytes : rule.user_memory_limit_bytes) =
                *bytes;
            return {};
        });
    if (!read) return std::unexpected(read.error());
    return rule;
}

Result<ProtectedSet> read_protected(const YamlReader& fields, const YAML::Node& map) {
    ProtectedSet set;
    auto read = fields.for_each_key(
        map, "protected", {"users", "executables", "pids"},
        [&](const std::string& key, const YAML::Node&, const YAML::Node& value) -> Result<void> {
            if (key == "pids") {
                return fields.for_each_item(
                    value, "protected.pids", [&](const YAML::Node& item) -> Result<void> {
                        auto pid = fields.integer(item, "protected.pids", config::kMaxPid);
                        if (!pid) return std::unexpected(pid.error());
                        if (*pid == 0) {
                            return fields.error(item, "protected.pids: 0 is not a PID");
                        }
                        set.pids.insert(static_cast<pid_t>(*pid));
                        return {};
                    });
            }
            auto names = fields.names(value, "protected." + key);
            if (!names) return std::unexpected(names.error());
            (key == "users" ? set.users : set.executables) = *names;
            return {};
        });
    if (!read) return std::unexpected(read.error());
    return set;
}

}  // namespace gpukill::guard::sections
