// The section readers behind parse_policy, one per part of guard.yaml, and the checks
// across sections. Internal to src/guard.
#pragma once

#include <yaml-cpp/yaml.h>

#include "guard/policy_fields.hpp"
#include "model/guard_policy.hpp"
#include "model/result.hpp"

namespace gpukill::guard::sections {

// `action:` and `grace_period:` inside a section, over the inherited values.
Result<void> read_enforcement_key(const YamlReader& fields, const std::string& key,
                                  const YAML::Node& value, std::string_view where,
                                  Enforcement& out);

Result<void> read_limit_key(const YamlReader& fields, const std::string& key,
                            const YAML::Node& value, std::string_view where, Limits& out);

Result<UserRule> read_user(const YamlReader& fields, const std::string& user,
                           const YAML::Node& key_node, const YAML::Node& map,
                           const Enforcement& inherited);
Result<GroupRule> read_group(const YamlReader& fields, const std::string& name,
                             const YAML::Node& key_node, const YAML::Node& map,
                             const Enforcement& inherited);
Result<ProjectRule> read_project(const YamlReader& fields, const std::string& name,
                                 const YAML::Node& key_node, const YAML::Node& map,
                                 const Enforcement& inherited);
Result<GpuRule> read_gpu(const YamlReader& fields, const std::string& key_text,
                         const YAML::Node& key_node, const YAML::Node& map,
                         const Enforcement& inherited);
Result<ProtectedSet> read_protected(const YamlReader& fields, const YAML::Node& map);

Result<std::vector<TimeWindow>> read_windows(const YamlReader& fields, const YAML::Node& list,
                                             const Enforcement& inherited);
Result<std::vector<RunawayRule>> read_runaway_rules(const YamlReader& fields,
                                                    const YAML::Node& list,
                                                    const Enforcement& inherited);

// Contradictions between sections (users against gpus, windows against windows).
Result<void> check_consistency(const YamlReader& fields, const Policy& policy);

}  // namespace gpukill::guard::sections
