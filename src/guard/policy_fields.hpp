// What reading a guard policy adds to the shared YAML reader (model/yaml_reader.hpp):
// the action words and where in the file a rule was written.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string_view>

#include "model/guard_policy.hpp"
#include "model/result.hpp"
#include "model/yaml_reader.hpp"

namespace gpukill::guard {

// warn, terminate or kill.
Result<Action> read_action(const YamlReader& reader, const YAML::Node& node, std::string_view key);

// The node's line and column, 1-based; empty for a node with no position.
SourceMark mark_of(const YAML::Node& node);

}  // namespace gpukill::guard
