#include "guard/policy_yaml.hpp"

#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <cerrno>
#include <optional>

#include "config/protected_list_file.hpp"
#include "guard/policy_fields.hpp"
#include "guard/policy_sections.hpp"
#include "host/proc_reader.hpp"
#include "model/quoted_text.hpp"
#include "model/yaml_load.hpp"

namespace gpukill::guard {
namespace sections {

Result<void> read_enforcement_key(const YamlReader& fields, const std::string& key,
                                  const YAML::Node& value, std::string_view where,
                                  Enforcement& out) {
    const std::string name = fmt::format("{}.{}", where, key);
    if (key == "action") {
        auto action = read_action(fields, value, name);
        if (!action) return std::unexpected(action.error());
        out.action = *action;
    } else {
        auto grace = fields.duration(value, name);
        if (!grace) return std::unexpected(grace.error());
        out.grace_period = *grace;
    }
    return {};
}

Result<void> read_limit_key(const YamlReader& fields, const std::string& key,
                            const YAML::Node& value, std::string_view where, Limits& out) {
    const std::string name = fmt::format("{}.{}", where, key);
    if (key == "memory_limit") {
        auto bytes = fields.size(value, name);
        if (!bytes) return std::unexpected(bytes.error());
        out.memory_bytes = *bytes;
    } else {
        // More processes than the kernel has PIDs is a typo, not a limit.
        auto count = fields.integer(value, name, config::kMaxPid);
        if (!count) return std::unexpected(count.error());
        out.max_processes = static_cast<unsigned>(*count);
    }
    return {};
}

}  // namespace sections

namespace {

using sections::read_enforcement_key;
using sections::read_gpu;
using sections::read_group;
using sections::read_limit_key;
using sections::read_protected;
using sections::read_user;

bool is_enforcement_key(const std::string& key) {
    return key == "action" || key == "grace_period";
}
bool is_limit_key(const std::string& key) {
    return key == "memory_limit" || key == "max_processes";
}

Result<void> read_defaults(const YamlReader& fields, const YAML::Node& map, Policy& policy) {
    policy.defaults_enforcement = policy.default_enforcement;
    return fields.for_each_key(
        map, "defaults", {"memory_limit", "max_processes", "action", "grace_period"},
        [&](const std::string& key, const YAML::Node&, const YAML::Node& value) -> Result<void> {
            if (is_limit_key(key))
                return read_limit_key(fields, key, value, "defaults", policy.defaults);
            return read_enforcement_key(fields, key, value, "defaults",
                                        policy.defaults_enforcement);
        });
}

Result<void> read_mode(const YamlReader& fields, const YAML::Node& value, Policy& policy) {
    const std::string text = value.IsScalar() && value.Tag() == "?" ? value.Scalar() : "";
    for (Mode mode : {Mode::off, Mode::dry_run, Mode::enforce}) {
        if (text == to_string(mode)) {
            policy.mode = mode;
            return {};
        }
    }
    return fields.error(value, "mode must be off, dry-run or enforce");
}

Result<std::chrono::seconds> read_bounded_duration(const YamlReader& fields,
                                                   const YAML::Node& value, std::string_view key,
                                                   std::chrono::seconds low,
                                                   std::chrono::seconds high) {
    auto seconds = fields.duration(value, key);
    if (!seconds) return seconds;
    if (*seconds < low || *seconds > high) {
        return fields.error(
            value, fmt::format("{} must be between {}s and {}s", key, low.count(), high.count()));
    }
    return seconds;
}

Result<Policy> read_document(const YamlReader& fields, const YAML::Node& document) {
    Policy policy;
    if (document.IsNull()) return policy;
    if (!document.IsMap()) return fields.error(document, "a policy is a mapping (mode: ..., ...)");
    // The top-level action and grace period are every section's default, wherever in
    // the file they are written: read them first.
    for (const auto& pair : document) {
        const std::string key = pair.first.IsScalar() ? pair.first.Scalar() : "";
        if (!is_enforcement_key(key)) continue;
        auto read =
            read_enforcement_key(fields, key, pair.second, "policy", policy.default_enforcement);
        if (!read) return std::unexpected(read.error());
    }
    policy.defaults_enforcement = policy.default_enforcement;
    const Enforcement inherited = policy.default_enforcement;
    auto read = fields.for_each_key(
        document, "policy",
        {"version", "mode", "check_interval", "terminate_timeout", "kill_timeout", "verify_timeout",
         "action", "grace_period", "defaults", "users", "groups", "projects", "gpus", "windows",
         "rules", "protected"},
        [&](const std::string& key, const YAML::Node&, const YAML::Node& value) -> Result<void> {
            if (key == "version") {
                auto version = fields.integer(value, "version", 1000);
                if (!version) return std::unexpected(version.error());
                if (*version != 1) {
                    return fields.error(value, fmt::format("version {} is not supported (this "
                                                           "gpukill reads version 1)",
                                                           *version));
                }
                return {};
            }
            if (key == "mode") return read_mode(fields, value, policy);
            if (key == "check_interval") {
                auto seconds = read_bounded_duration(fields, value, key, std::chrono::seconds(1),
                                                     std::chrono::seconds(86400));
                if (!seconds) return std::unexpected(seconds.error());
                policy.check_interval = *seconds;
                return {};
            }
            if (key == "terminate_timeout" || key == "kill_timeout" || key == "verify_timeout") {
                auto seconds = read_bounded_duration(fields, value, key, std::chrono::seconds(0),
                                                     std::chrono::seconds(3600));
                if (!seconds) return std::unexpected(seconds.error());
                (key == "terminate_timeout" ? policy.terminate_timeout
                 : key == "kill_timeout"    ? policy.kill_timeout
                                            : policy.verify_timeout) = *seconds;
                return {};
            }
            if (is_enforcement_key(key)) return {};  // read above
            if (key == "defaults") return read_defaults(fields, value, policy);
            if (key == "users" || key == "groups" || key == "projects" || key == "gpus") {
                return fields.for_each_entry(
                    value, key,
                    [&](const std::string& name, const YAML::Node& key_node,
                        const YAML::Node& body) -> Result<void> {
                        if (key == "users") {
                            auto rule = read_user(fields, name, key_node, body, inherited);
                            if (!rule) return std::unexpected(rule.error());
                            policy.users.push_back(std::move(*rule));
                        } else if (key == "groups") {
                            auto rule = read_group(fields, name, key_node, body, inherited);
                            if (!rule) return std::unexpected(rule.error());
                            policy.groups.push_back(std::move(*rule));
                        } else if (key == "projects") {
                            auto rule =
                                sections::read_project(fields, name, key_node, body, inherited);
                            if (!rule) return std::unexpected(rule.error());
                            policy.projects.push_back(std::move(*rule));
                        } else {
                            auto rule = read_gpu(fields, name, key_node, body, inherited);
                            if (!rule) return std::unexpected(rule.error());
                            for (const GpuRule& other : policy.gpus) {
                                if (other.index == rule->index) {
                                    return fields.error(key_node,
                                                        fmt::format("gpus: GPU {} appears twice "
                                                                    "(also at line {})",
                                                                    rule->index, other.mark.line));
                                }
                            }
                            policy.gpus.push_back(std::move(*rule));
                        }
                        return {};
                    });
            }
            if (key == "windows") {
                auto windows = sections::read_windows(fields, value, inherited);
                if (!windows) return std::unexpected(windows.error());
                policy.windows = std::move(*windows);
                return {};
            }
            if (key == "rules") {
                auto rules = sections::read_runaway_rules(fields, value, inherited);
                if (!rules) return std::unexpected(rules.error());
                policy.rules = std::move(*rules);
                return {};
            }
            auto set = read_protected(fields, value);
            if (!set) return std::unexpected(set.error());
            policy.protected_processes = std::move(*set);
            return {};
        },
        /*allow_null=*/true);
    if (!read) return std::unexpected(read.error());
    auto consistent = sections::check_consistency(fields, policy);
    if (!consistent) return std::unexpected(consistent.error());
    return policy;
}

}  // namespace

Result<Policy> parse_policy(std::string_view text, std::string_view source) {
    const YamlReader fields{std::string(source)};
    auto document = fields.single_document(text);
    if (!document) return std::unexpected(document.error());
    if (!*document) return Policy{};
    return read_document(fields, **document);
}

Result<Policy> load_policy_file(const std::string& path) {
    auto text = read_text_file(path);
    if (!text) return std::unexpected(text.error());
    return parse_policy(*text, path);
}

std::string default_policy_path(const std::string& config_dir) {
    return config_dir + "/" + kPolicyFileName;
}

}  // namespace gpukill::guard
