#include "detect/yaml_fields.hpp"

#include <charconv>
#include <cmath>
#include <set>

#include "model/quoted_text.hpp"

namespace gpukill::detect::yaml_fields {

std::string shown(const YAML::Node& node) {
    return node.IsScalar() ? quote_escaped(node.Scalar()) : std::string("that value");
}

Result<long long> read_int(const Reader& reader, const YAML::Node& node, std::string_view key,
                           long long min, long long max) {
    const std::string text = node.IsScalar() ? node.Scalar() : "";
    long long value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (!is_plain_scalar(node) || text.empty() || end != text.data() + text.size() ||
        ec != std::errc()) {
        return reader.error(node.Mark(), fmt::format("{}: {} is not an integer", key, shown(node)));
    }
    if (value < min || value > max) {
        return reader.error(node.Mark(),
                            fmt::format("{}: {} is outside {}..{}", key, text, min, max));
    }
    return value;
}

// A number in (min, max] when min_exclusive, else [min, max].
Result<double> read_number(const Reader& reader, const YAML::Node& node, std::string_view key,
                           double min, double max, bool min_exclusive) {
    const std::string text = node.IsScalar() ? node.Scalar() : "";
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (!is_plain_scalar(node) || text.empty() || end != text.data() + text.size() ||
        ec != std::errc() || !std::isfinite(value)) {
        return reader.error(node.Mark(), fmt::format("{}: {} is not a number", key, shown(node)));
    }
    if ((min_exclusive ? value <= min : value < min) || value > max) {
        if (min_exclusive) {
            return reader.error(
                node.Mark(),
                fmt::format("{}: {} must be above {:g} and at most {:g}", key, text, min, max));
        }
        return reader.error(node.Mark(),
                            fmt::format("{}: {} is outside {:g}..{:g}", key, text, min, max));
    }
    return value;
}

// Visits a mapping's keys, refusing repeated ones; `null_ok`: `key:` with nothing is an
// empty mapping.
Result<void> for_each_key(const Reader& reader, const YAML::Node& map, std::string_view what,
                          const KeyVisitor& visit) {
    if (map.IsNull()) return {};
    if (!map.IsMap()) {
        return reader.error(map.Mark(),
                            fmt::format("{} must be a mapping of keys to values", what));
    }
    std::set<std::string> seen;
    for (const auto& pair : map) {
        const std::string name = pair.first.IsScalar() ? pair.first.Scalar() : "";
        if (!seen.insert(name).second) {
            return reader.error(pair.first.Mark(),
                                fmt::format("key {} appears twice", quote_escaped(name)));
        }
        if (auto visited = visit(name, pair.first, pair.second); !visited) return visited;
    }
    return {};
}

std::unexpected<Error> unknown_key(const Reader& reader, const YAML::Node& key,
                                   std::string_view what, std::string_view known) {
    return reader.error(key.Mark(),
                        fmt::format("unknown key {} in {} (expected {})",
                                    key.IsScalar() ? quote_escaped(key.Scalar())
                                                   : std::string("that is not a string"),
                                    what, known));
}

// `key:` with nothing after it is an empty list, so commenting out every entry works.
Result<std::vector<std::string>> read_strings(const Reader& reader, const YAML::Node& list,
                                              std::string_view key, const EntryCheck& check) {
    std::vector<std::string> values;
    if (list.IsNull()) return values;
    if (!list.IsSequence()) {
        return reader.error(list.Mark(),
                            fmt::format("{} must be a list, e.g. {}: [a, b]", key, key));
    }
    std::set<std::string> seen;
    for (const YAML::Node& item : list) {
        if (!item.IsScalar() || item.Scalar().empty()) {
            return reader.error(item.Mark(),
                                fmt::format("{}: each entry must be non-empty text", key));
        }
        const std::string& text = item.Scalar();
        if (std::string why = check(text); !why.empty()) {
            return reader.error(item.Mark(),
                                fmt::format("{}: {} {}", key, quote_escaped(text), why));
        }
        if (!seen.insert(text).second) {
            return reader.error(item.Mark(),
                                fmt::format("{}: {} is listed twice", key, quote_escaped(text)));
        }
        values.push_back(text);
    }
    return values;
}

}  // namespace gpukill::detect::yaml_fields
