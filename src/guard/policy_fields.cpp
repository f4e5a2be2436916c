#include "guard/policy_fields.hpp"

#include <fmt/format.h>

#include "model/yaml_load.hpp"

namespace gpukill::guard {

Result<Action> read_action(const YamlReader& reader, const YAML::Node& node, std::string_view key) {
    if (is_plain_scalar(node)) {
        const std::string& text = node.Scalar();
        if (text == "warn") return Action::warn;
        if (text == "terminate") return Action::terminate;
        if (text == "kill") return Action::kill;
    }
    return reader.error(
        node, fmt::format("{} must be warn, terminate or kill, not {}", key, shown(node)));
}

SourceMark mark_of(const YAML::Node& node) {
    const YAML::Mark mark = node.Mark();
    if (mark.is_null()) return {};
    return SourceMark{mark.line + 1, mark.column + 1};
}

}  // namespace gpukill::guard
