#include "fleet/node_set.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "model/human_format.hpp"

namespace gpukill::fleet {
namespace {

struct NodeSetParser {
    std::string_view text;
    std::size_t pos = 0;

    std::unexpected<Error> error(const std::string& what, std::size_t column) const {
        // The text may hold anything (an escape sequence): shown printable.
        return fail(
            ErrorCategory::invalid_input,
            printable(fmt::format("bad node set '{}': {} at column {}", text, what, column + 1)));
    }

    static bool name_char(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '_' || c == '.' || c == ':' || c == '@';
    }

    // digits at pos; empty when none.
    std::string_view digits() {
        const std::size_t start = pos;
        while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') ++pos;
        return text.substr(start, pos - start);
    }

    // One bracket group, pos just after '['; the names it stands for, formatted.
    Result<std::vector<std::string>> bracket() {
        std::vector<std::string> values;
        while (true) {
            const std::size_t start_column = pos;
            const std::string_view first = digits();
            if (first.empty() || first.size() > 18) {
                if (pos >= text.size()) return error("unclosed '['", start_column - 1);
                return error(first.empty() ? "expected a number" : "number too long", pos);
            }
            std::uint64_t low = std::stoull(std::string(first));
            std::uint64_t high = low;
            std::uint64_t step = 1;
            if (pos < text.size() && text[pos] == '-') {
                ++pos;
                const std::string_view last = digits();
                if (last.empty() || last.size() > 18) return error("expected a number", pos);
                high = std::stoull(std::string(last));
                if (high < low) {
                    return error(fmt::format("range {}-{} runs backwards", first, last),
                                 start_column);
                }
                if (pos < text.size() && text[pos] == '/') {
                    ++pos;
                    const std::string_view s = digits();
                    if (s.empty() || s.size() > 9 || std::stoull(std::string(s)) == 0) {
                        return error("expected a step of at least 1", pos);
                    }
                    step = std::stoull(std::string(s));
                }
            }
            const std::size_t width = first.size() > 1 && first[0] == '0' ? first.size() : 0;
            if ((high - low) / step + values.size() >= kMaxNodeSetSize) {
                return error(fmt::format("more than {} names", kMaxNodeSetSize), start_column);
            }
            for (std::uint64_t v = low; v <= high; v += step) {
                values.push_back(fmt::format("{:0{}}", v, width));
                if (high - v < step) break;
            }
            if (pos >= text.size()) return error("unclosed '['", start_column - 1);
            if (text[pos] == ',') {
                ++pos;
                continue;
            }
            if (text[pos] == ']') {
                ++pos;
                return values;
            }
            return error(fmt::format("unexpected '{}' in a range", text[pos]), pos);
        }
    }

    // One pattern (literal text and bracket groups) up to an operator or the end.
    Result<std::vector<std::string>> pattern() {
        while (pos < text.size() && text[pos] == ' ') ++pos;
        const std::size_t start = pos;
        std::vector<std::string> names{""};
        while (pos < text.size() && text[pos] != ',' && text[pos] != '!' && text[pos] != '&' &&
               text[pos] != ' ') {
            const char c = text[pos];
            if (c == '[') {
                ++pos;
                auto values = bracket();
                if (!values) return std::unexpected(values.error());
                if (names.size() * values->size() > kMaxNodeSetSize) {
                    return error(fmt::format("more than {} names", kMaxNodeSetSize), start);
                }
                std::vector<std::string> product;
                product.reserve(names.size() * values->size());
                for (const std::string& head : names) {
                    for (const std::string& value : *values) product.push_back(head + value);
                }
                names = std::move(product);
            } else if (c == ']') {
                return error("']' without '['", pos);
            } else if (name_char(c)) {
                for (std::string& name : names) name += c;
                ++pos;
            } else {
                return error(fmt::format("unexpected character '{}'", c), pos);
            }
        }
        const std::size_t end = pos;
        while (pos < text.size() && text[pos] == ' ') ++pos;
        if (pos < text.size() && text[pos] != ',' && text[pos] != '!' && text[pos] != '&') {
            return error("space inside a name", end);
        }
        if (end == start) return error("empty name", start);
        return names;
    }
};

void add_unique(std::vector<std::string>& into, std::set<std::string>& seen,
                const std::vector<std::string>& names) {
    for (const std::string& name : names) {
        if (seen.insert(name).second) into.push_back(name);
    }
}

struct NumberedName {
    std::string prefix, suffix;
    std::string digits;
};

std::optional<NumberedName> split_last_number(const std::string& name) {
    const std::size_t end = name.find_last_of("0123456789");
    if (end == std::string::npos) return std::nullopt;
    std::size_t start = end;
    while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9') --start;
    if (end - start + 1 > 18) return std::nullopt;
    return NumberedName{name.substr(0, start), name.substr(end + 1),
                        name.substr(start, end - start + 1)};
}

std::string ranges_text(const std::vector<std::uint64_t>& values, std::size_t width) {
    std::string out;
    for (std::size_t i = 0; i < values.size();) {
        std::size_t j = i;
        while (j + 1 < values.size() && values[j + 1] == values[j] + 1) ++j;
        if (!out.empty()) out += ',';
        out += fmt::format("{:0{}}", values[i], width);
        if (j > i) out += fmt::format("-{:0{}}", values[j], width);
        i = j + 1;
    }
    return out;
}

}  // namespace

Result<std::vector<std::string>> expand_node_set(std::string_view text) {
    NodeSetParser parser{text};
    if (text.find_first_not_of(' ') == std::string_view::npos) {
        return fail(ErrorCategory::invalid_input, "bad node set '': no host named");
    }
    auto first = parser.pattern();
    if (!first) return std::unexpected(first.error());
    std::vector<std::string> result;
    std::set<std::string> seen;
    add_unique(result, seen, *first);
    while (parser.pos < text.size()) {
        const char op = text[parser.pos++];
        auto next = parser.pattern();
        if (!next) return std::unexpected(next.error());
        if (op == ',') {
            add_unique(result, seen, *next);
            if (result.size() > kMaxNodeSetSize) {
                return parser.error(fmt::format("more than {} names", kMaxNodeSetSize), parser.pos);
            }
        } else {
            const std::set<std::string> other(next->begin(), next->end());
            std::erase_if(result, [&](const std::string& name) {
                return (op == '!') == other.contains(name);
            });
            seen = std::set<std::string>(result.begin(), result.end());
        }
    }
    return result;
}

std::vector<std::string> exclude_hosts(const std::vector<std::string>& hosts,
                                       const std::vector<std::string>& excluded) {
    const std::set<std::string> drop(excluded.begin(), excluded.end());
    std::vector<std::string> kept;
    for (const std::string& host : hosts) {
        if (!drop.contains(host)) kept.push_back(host);
    }
    return kept;
}

std::string fold_node_set(const std::vector<std::string>& hosts) {
    // (prefix, suffix) -> the numbers seen, with their digit count and leading zero.
    struct Number {
        std::uint64_t value;
        std::size_t length;
        bool padded;
    };
    std::map<std::pair<std::string, std::string>, std::vector<Number>> groups;
    std::set<std::string> plain;
    for (const std::string& host : std::set<std::string>(hosts.begin(), hosts.end())) {
        auto numbered = split_last_number(host);
        if (!numbered) {
            plain.insert(host);
            continue;
        }
        groups[{numbered->prefix, numbered->suffix}].push_back(
            Number{std::stoull(numbered->digits), numbered->digits.size(),
                   numbered->digits.size() > 1 && numbered->digits[0] == '0'});
    }
    // Each entry: (prefix, first value, text), sorted for a stable, readable order.
    std::vector<std::tuple<std::string, std::uint64_t, std::string>> parts;
    for (const std::string& name : plain) parts.emplace_back(name, 0, name);
    for (auto& [key, numbers] : groups) {
        std::set<std::size_t> padded_widths;
        for (const Number& n : numbers) {
            if (n.padded) padded_widths.insert(n.length);
        }
        // width 0: unpadded; a number without a leading zero as long as a padded width
        // belongs with it (node10 with node01-node09).
        std::map<std::size_t, std::vector<std::uint64_t>> by_width;
        for (const Number& n : numbers) {
            const std::size_t width = n.padded || padded_widths.contains(n.length) ? n.length : 0;
            by_width[width].push_back(n.value);
        }
        for (auto& [width, values] : by_width) {
            std::sort(values.begin(), values.end());
            values.erase(std::unique(values.begin(), values.end()), values.end());
            std::string text =
                values.size() == 1
                    ? fmt::format("{}{:0{}}{}", key.first, values[0], width, key.second)
                    : fmt::format("{}[{}]{}", key.first, ranges_text(values, width), key.second);
            parts.emplace_back(key.first, values.front(), std::move(text));
        }
    }
    std::sort(parts.begin(), parts.end());
    std::string out;
    for (const auto& part : parts) {
        if (!out.empty()) out += ',';
        out += std::get<2>(part);
    }
    return out;
}

}  // namespace gpukill::fleet
