// guard.yaml's projects: entries (policy.hpp, ProjectRule; docs/GUARD.md).
#include <fmt/format.h>

#include "guard/policy_sections.hpp"

namespace gpukill::guard::sections {

Result<ProjectRule> read_project(const YamlReader& fields, const std::string& name,
                                 const YAML::Node& key_node, const YAML::Node& map,
                                 const Enforcement& inherited) {
    ProjectRule rule{.name = name, .enforcement = inherited, .mark = mark_of(key_node)};
    const std::string where = "projects." + name;
    auto read = fields.for_each_key(
        map, where,
        {"kubernetes_namespaces", "slurm_accounts", "slurm_jobs", "unix_groups", "memory_limit",
         "max_processes", "allowed_gpus", "action", "grace_period"},
        [&](const std::string& key, const YAML::Node&, const YAML::Node& value) -> Result<void> {
            if (key == "memory_limit" || key == "max_processes") {
                return read_limit_key(fields, key, value, where, rule.limits);
            }
            if (key == "action" || key == "grace_period") {
                return read_enforcement_key(fields, key, value, where, rule.enforcement);
            }
            if (key == "allowed_gpus") {
                auto gpus = fields.gpu_indices(value, where + "." + key);
                if (!gpus) return std::unexpected(gpus.error());
                rule.allowed_gpus = *gpus;
                return {};
            }
            auto names = fields.names(value, where + "." + key);
            if (!names) return std::unexpected(names.error());
            (key == "kubernetes_namespaces" ? rule.match.kubernetes_namespaces
             : key == "slurm_accounts"      ? rule.match.slurm_accounts
             : key == "slurm_jobs"          ? rule.match.slurm_jobs
                                            : rule.match.unix_groups) = *names;
            return {};
        });
    if (!read) return std::unexpected(read.error());
    if (rule.match.empty()) {
        return fields.error(key_node, fmt::format("{} matches nothing: give kubernetes_namespaces, "
                                                  "slurm_accounts, slurm_jobs or unix_groups",
                                                  where));
    }
    if (rule.limits.empty() && !rule.allowed_gpus) {
        return fields.error(key_node, fmt::format("{} sets no limit (memory_limit, max_processes "
                                                  "or allowed_gpus)",
                                                  where));
    }
    return rule;
}

}  // namespace gpukill::guard::sections
