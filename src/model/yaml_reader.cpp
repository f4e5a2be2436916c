#include "model/yaml_reader.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>

#include "model/byte_size.hpp"
#include "model/quoted_text.hpp"
#include "model/yaml_load.hpp"

namespace gpukill {
namespace {

std::string join(std::span<const std::string_view> words) {
    std::string joined;
    for (std::string_view word : words) {
        if (!joined.empty()) joined += ", ";
        joined += word;
    }
    return joined;
}

}  // namespace

std::string shown(const YAML::Node& node) {
    if (node.IsScalar()) return quote_escaped(node.Scalar());
    if (node.IsSequence()) return "a list";
    if (node.IsMap()) return "a mapping";
    return "nothing";
}

Result<std::optional<YAML::Node>> YamlReader::single_document(std::string_view text) const {
    std::vector<YAML::Node> documents;
    try {
        documents = load_yaml_documents(text);
    } catch (const YAML::Exception& e) {
        // Syntax errors (ParserException) carry the position; e.msg is the bare reason.
        return error(e.mark, e.msg);
    }
    if (documents.size() > 1) {
        return error(documents[1].Mark(), "more than one YAML document; use one");
    }
    if (documents.empty()) return std::optional<YAML::Node>();
    return std::optional<YAML::Node>(documents.front());
}

std::unexpected<Error> YamlReader::error(const YAML::Mark& mark, std::string_view what) const {
    return yaml_error(source_, mark, what);
}

std::unexpected<Error> YamlReader::unknown_key(const YAML::Node& key, std::string_view where,
                                               std::string_view known) const {
    return error(key, fmt::format("unknown key {} in {} (expected {})",
                                  key.IsScalar() ? quote_escaped(key.Scalar())
                                                 : std::string("that is not a string"),
                                  where, known));
}

Result<void> YamlReader::for_each_entry(const YAML::Node& map, std::string_view where,
                                        const KeyVisitor& visit) const {
    if (map.IsNull()) return {};
    if (!map.IsMap()) return error(map, fmt::format("{} must be a mapping", where));
    std::set<std::string> seen;
    for (const auto& pair : map) {
        const YAML::Node& key = pair.first;
        if (!key.IsScalar() || key.Scalar().empty()) {
            return error(key, fmt::format("{}: a key must be a non-empty string", where));
        }
        if (!seen.insert(key.Scalar()).second) {
            return error(
                key, fmt::format("{}: key {} appears twice", where, quote_escaped(key.Scalar())));
        }
        if (auto visited = visit(key.Scalar(), key, pair.second); !visited) return visited;
    }
    return {};
}

Result<void> YamlReader::for_each_key(const YAML::Node& map, std::string_view where,
                                      std::span<const std::string_view> known,
                                      const KeyVisitor& visit, bool allow_null) const {
    if (map.IsNull() && !allow_null) {
        return error(map, fmt::format("{} must be a mapping with the keys {}", where, join(known)));
    }
    if (!map.IsNull() && !map.IsMap()) {
        return error(map, fmt::format("{} must be a mapping with the keys {}", where, join(known)));
    }
    return for_each_entry(map, where,
                          [&](const std::string& key, const YAML::Node& key_node,
                              const YAML::Node& value) -> Result<void> {
                              bool is_known = false;
                              for (std::string_view name : known) is_known |= name == key;
                              if (!is_known) {
                                  return error(key_node,
                                               fmt::format("{}: unknown key {} (expected {})",
                                                           where, quote_escaped(key), join(known)));
                              }
                              return visit(key, key_node, value);
                          });
}

Result<std::string> YamlReader::text(const YAML::Node& node, std::string_view key) const {
    if (!node.IsScalar() || node.Scalar().empty()) {
        return error(node, fmt::format("{} must be a non-empty string", key));
    }
    return node.Scalar();
}

// YAML 1.2's booleans only: yaml-cpp would also take yes/no/on/off, which YAML 1.2
// treats as strings and which read ambiguously in a safety setting.
Result<bool> YamlReader::boolean(const YAML::Node& node, std::string_view key) const {
    if (is_plain_scalar(node)) {
        const std::string& text = node.Scalar();
        if (text == "true" || text == "True" || text == "TRUE") return true;
        if (text == "false" || text == "False" || text == "FALSE") return false;
    }
    return error(node, fmt::format("{} must be true or false, not {}", key, shown(node)));
}

Result<std::uint64_t> YamlReader::integer(const YAML::Node& node, std::string_view key,
                                          std::uint64_t max) const {
    const std::string text = node.IsScalar() ? node.Scalar() : "";
    if (is_plain_scalar(node) && !text.empty() && text.front() == '-') {
        return error(node, fmt::format("{} must not be negative ({})", key, text));
    }
    std::uint64_t value = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (!is_plain_scalar(node) || text.empty() || ptr != end ||
        (ec != std::errc() && ec != std::errc::result_out_of_range)) {
        return error(node, fmt::format("{} must be a whole number, not {}", key, shown(node)));
    }
    if (ec != std::errc() || value > max) {
        return error(node, fmt::format("{} is {}, above the largest possible {}", key, text, max));
    }
    return value;
}

Result<unsigned> YamlReader::percent(const YAML::Node& node, std::string_view key) const {
    auto value = integer(node, key, std::numeric_limits<std::uint64_t>::max());
    if (!value) return std::unexpected(value.error());
    if (*value > 100) {
        return error(node, fmt::format("{} is {}%, a percentage is 0..100", key, *value));
    }
    return static_cast<unsigned>(*value);
}

Result<double> YamlReader::number(const YAML::Node& node, std::string_view key) const {
    const std::string text = node.IsScalar() ? node.Scalar() : "";
    double value = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (!is_plain_scalar(node) || text.empty() || ptr != end || ec != std::errc() ||
        !std::isfinite(value)) {
        return error(node, fmt::format("{} must be a number, not {}", key, shown(node)));
    }
    if (value < 0) return error(node, fmt::format("{} must not be negative ({})", key, text));
    return value;
}

Result<std::uint64_t> YamlReader::size(const YAML::Node& node, std::string_view key) const {
    if (!node.IsScalar() || node.Scalar().empty()) {
        return error(node,
                     fmt::format("{} must be a size such as 8G or 512M, not {}", key, shown(node)));
    }
    auto bytes = parse_byte_size(node.Scalar());
    if (!bytes) return error(node, fmt::format("{}: {}", key, bytes.error().what));
    return *bytes;
}

Result<std::chrono::seconds> YamlReader::duration(const YAML::Node& node,
                                                  std::string_view key) const {
    if (!node.IsScalar() || node.Scalar().empty()) {
        return error(node, fmt::format("{} must be a duration such as 30s, 5m or 2h, not {}", key,
                                       shown(node)));
    }
    auto parsed = parse_duration(node.Scalar());
    if (!parsed) return error(node, fmt::format("{}: {}", key, parsed.error().what));
    return *parsed;
}

Result<long long> YamlReader::integer_in(const YAML::Node& node, std::string_view key,
                                         long long min, long long max) const {
    const std::string text = node.IsScalar() ? node.Scalar() : "";
    long long value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (!is_plain_scalar(node) || text.empty() || end != text.data() + text.size() ||
        ec != std::errc()) {
        return error(node, fmt::format("{}: {} is not an integer", key, shown(node)));
    }
    if (value < min || value > max) {
        return error(node, fmt::format("{}: {} is outside {}..{}", key, text, min, max));
    }
    return value;
}

Result<double> YamlReader::number_in(const YAML::Node& node, std::string_view key, double min,
                                     double max, bool min_exclusive) const {
    const std::string text = node.IsScalar() ? node.Scalar() : "";
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (!is_plain_scalar(node) || text.empty() || end != text.data() + text.size() ||
        ec != std::errc() || !std::isfinite(value)) {
        return error(node, fmt::format("{}: {} is not a number", key, shown(node)));
    }
    if ((min_exclusive ? value <= min : value < min) || value > max) {
        if (min_exclusive) {
            return error(node, fmt::format("{}: {} must be above {:g} and at most {:g}", key, text,
                                           min, max));
        }
        return error(node, fmt::format("{}: {} is outside {:g}..{:g}", key, text, min, max));
    }
    return value;
}

Result<void> YamlReader::for_each_item(
    const YAML::Node& list, std::string_view key,
    const std::function<Result<void>(const YAML::Node&)>& visit) const {
    if (list.IsNull()) return {};
    if (!list.IsSequence()) {
        return error(list, fmt::format("{} must be a list, e.g. {}: [a, b]", key, key));
    }
    for (const YAML::Node& item : list) {
        if (auto visited = visit(item); !visited) return visited;
    }
    return {};
}

Result<std::vector<std::string>> YamlReader::strings(const YAML::Node& list, std::string_view key,
                                                     const EntryCheck& check) const {
    std::vector<std::string> values;
    std::set<std::string> seen;
    auto read = for_each_item(list, key, [&](const YAML::Node& item) -> Result<void> {
        if (!item.IsScalar() || item.Scalar().empty()) {
            return error(item, fmt::format("{}: each entry must be non-empty text", key));
        }
        const std::string& text = item.Scalar();
        if (std::string why = check(text); !why.empty()) {
            return error(item, fmt::format("{}: {} {}", key, quote_escaped(text), why));
        }
        if (!seen.insert(text).second) {
            return error(item, fmt::format("{}: {} is listed twice", key, quote_escaped(text)));
        }
        values.push_back(text);
        return {};
    });
    if (!read) return std::unexpected(read.error());
    return values;
}

Result<std::set<std::string>> YamlReader::names(const YAML::Node& node,
                                                std::string_view key) const {
    std::set<std::string> out;
    auto read = for_each_item(node, key, [&](const YAML::Node& item) -> Result<void> {
        if (!item.IsScalar() || item.Scalar().empty()) {
            return error(item, fmt::format("{}: each entry must be a non-empty name", key));
        }
        if (!out.insert(item.Scalar()).second) {
            return error(item,
                         fmt::format("{}: {} is listed twice", key, quote_escaped(item.Scalar())));
        }
        return {};
    });
    if (!read) return std::unexpected(read.error());
    return out;
}

Result<std::set<unsigned>> YamlReader::gpu_indices(const YAML::Node& node,
                                                   std::string_view key) const {
    std::set<unsigned> out;
    auto read = for_each_item(node, key, [&](const YAML::Node& item) -> Result<void> {
        auto index = integer(item, std::string(key) + " entry", kMaxGpuIndex);
        if (!index) return std::unexpected(index.error());
        if (!out.insert(static_cast<unsigned>(*index)).second) {
            return error(item, fmt::format("{}: GPU {} is listed twice", key, *index));
        }
        return {};
    });
    if (!read) return std::unexpected(read.error());
    return out;
}

Result<std::chrono::seconds> parse_duration(std::string_view text) {
    auto bad = [&](std::string_view why) {
        return fail(fmt::format("bad duration {}: {}", quote_escaped(text), why));
    };
    if (text.empty()) return bad("empty");
    if (text.front() == '-') return bad("must not be negative");
    // Ten years: anything longer is a typo, and the sum below cannot overflow.
    constexpr std::int64_t kMaxSeconds = 10LL * 366 * 24 * 3600;
    std::int64_t total = 0;
    std::int64_t previous_unit = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::int64_t value = 0;
        const char* begin = text.data() + pos;
        auto [ptr, ec] = std::from_chars(begin, text.data() + text.size(), value);
        if (ptr == begin) return bad("expected a number such as 30s, 5m or 2h");
        if (ec != std::errc() || value > kMaxSeconds) return bad("too long");
        pos = static_cast<std::size_t>(ptr - text.data());
        std::int64_t unit = 0;
        if (pos == text.size()) {
            if (total != 0) return bad("a number without a unit after another part");
            unit = 1;  // a bare number is seconds
        } else {
            switch (text[pos]) {
                case 's':
                    unit = 1;
                    break;
                case 'm':
                    unit = 60;
                    break;
                case 'h':
                    unit = 3600;
                    break;
                case 'd':
                    unit = 86400;
                    break;
                default:
                    return bad("unknown unit (use s, m, h or d)");
            }
            ++pos;
        }
        // Each unit once, largest first (1h30m, not 1h1h or 30m1h): a repeat is a typo.
        if (previous_unit != 0 && unit >= previous_unit) {
            return bad("units must go from largest to smallest, each once (e.g. 1h30m)");
        }
        previous_unit = unit;
        total += value * unit;
        if (total > kMaxSeconds) return bad("too long");
    }
    return std::chrono::seconds(total);
}

}  // namespace gpukill
