#include "guard/policy_edit.hpp"

#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <optional>
#include <vector>

#include "guard/rules.hpp"
#include "model/quoted_text.hpp"
#include "model/yaml_load.hpp"

namespace gpukill::guard {
namespace {

// The one document of the text; an empty text is a null document.
Result<YAML::Node> load(std::string_view text) {
    std::vector<YAML::Node> documents;
    try {
        documents = load_yaml_documents(text);
    } catch (const YAML::Exception& e) {
        return fail(terminal_safe(
            fmt::format("the policy is not valid YAML ({}:{}: {}): fix it by hand first",
                        e.mark.line + 1, e.mark.column + 1, e.msg)));
    }
    if (documents.size() > 1) return fail("the policy has more than one YAML document");
    if (documents.empty() || documents.front().IsNull()) return YAML::Node();
    if (!documents.front().IsMap()) return fail("the policy is not a mapping");
    return documents.front();
}

// Byte offset where line `line` (0-based) starts; text.size() past the end.
std::size_t line_start(std::string_view text, int line) {
    std::size_t offset = 0;
    for (int at = 0; at < line; ++at) {
        const auto newline = text.find('\n', offset);
        if (newline == std::string_view::npos) return text.size();
        offset = newline + 1;
    }
    return offset;
}

bool blank_or_comment(std::string_view line) {
    const auto first = line.find_first_not_of(" \t\r\n");
    return first == std::string_view::npos || line[first] == '#';
}

// A key as YAML text: plain when it is safe to leave plain.
std::string key_text(std::string_view key) {
    bool plain = !key.empty();
    for (char c : key) {
        plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
                          c == '.' || c == '@');
    }
    if (plain && key.front() != '-') return std::string(key);
    std::string quoted = "\"";
    for (char c : key) {
        if (c == '"' || c == '\\') quoted += '\\';
        quoted += c;
    }
    return quoted + "\"";
}

std::string with_newline(std::string_view text) {
    std::string out(text);
    if (!out.empty() && out.back() != '\n') out += '\n';
    return out;
}

struct Section {
    YAML::Node key;
    YAML::Node value;
    std::optional<int> next_top_line;  // the line of the top-level key after it
};

std::optional<Section> find_section(const YAML::Node& document, std::string_view name) {
    if (!document || !document.IsMap()) return std::nullopt;
    std::optional<Section> found;
    for (const auto& pair : document) {
        if (found) {
            found->next_top_line = pair.first.Mark().line;
            break;
        }
        if (pair.first.IsScalar() && pair.first.Scalar() == name) {
            found = Section{pair.first, pair.second, std::nullopt};
        }
    }
    return found;
}

std::string list_text(const std::set<std::string>& items) {
    std::string out;
    for (const std::string& item : items) out += (out.empty() ? "" : ", ") + key_text(item);
    return "[" + out + "]";
}

std::string list_text(const std::set<unsigned>& items) {
    std::string out;
    for (unsigned item : items) out += (out.empty() ? "" : ", ") + std::to_string(item);
    return "[" + out + "]";
}

void add_enforcement(std::vector<std::string>& fields, const Enforcement& rule,
                     const Enforcement& inherited) {
    if (rule.action != inherited.action)
        fields.push_back(fmt::format("action: {}", to_string(rule.action)));
    if (rule.grace_period != inherited.grace_period) {
        fields.push_back("grace_period: " + rules::describe_duration(rule.grace_period));
    }
}

void add_limits(std::vector<std::string>& fields, const Limits& limits) {
    if (limits.memory_bytes) fields.push_back("memory_limit: " + size_text(*limits.memory_bytes));
    if (limits.max_processes)
        fields.push_back(fmt::format("max_processes: {}", *limits.max_processes));
}

std::string flow(const std::vector<std::string>& fields) {
    std::string out;
    for (const std::string& field : fields) out += (out.empty() ? "" : ", ") + field;
    return "{" + out + "}";
}

}  // namespace

std::string size_text(std::uint64_t bytes) {
    for (auto [unit, size] :
         {std::pair{'T', 1ULL << 40}, {'G', 1ULL << 30}, {'M', 1ULL << 20}, {'K', 1ULL << 10}}) {
        if (bytes != 0 && bytes % size == 0) return fmt::format("{}{}", bytes / size, unit);
    }
    return std::to_string(bytes);
}

Result<std::string> set_mode(std::string_view text, Mode mode) {
    auto document = load(text);
    if (!document) return std::unexpected(document.error());
    const std::string value = to_string(mode);
    if (auto section = find_section(*document, "mode")) {
        const YAML::Node& node = section->value;
        if (!node.IsScalar() || node.Tag() != "?") {
            return fail("mode: is not a plain value; fix it by hand first");
        }
        const auto at = static_cast<std::size_t>(node.Mark().pos);
        std::string out(text);
        out.replace(at, node.Scalar().size(), value);
        return out;
    }
    // No mode yet: before the first key, so it reads first (after a header comment).
    std::size_t at = text.size();
    if (*document && document->IsMap() && document->size() > 0) {
        at = line_start(text, document->begin()->first.Mark().line);
    }
    std::string out(text.substr(0, at));
    if (at == text.size()) out = with_newline(out);
    out += "mode: " + value + "\n";
    out += text.substr(at);
    return out;
}

Result<std::string> set_entry(std::string_view text, std::string_view section_name,
                              std::string_view key, std::string_view flow_value) {
    auto document = load(text);
    if (!document) return std::unexpected(document.error());
    auto section = find_section(*document, section_name);
    const std::string entry_key = key_text(key);
    if (!section) {
        return with_newline(text) +
               fmt::format("{}:\n  {}: {}\n", section_name, entry_key, flow_value);
    }
    const YAML::Node& map = section->value;
    const std::size_t after_key = line_start(text, section->key.Mark().line + 1);
    if (map.IsNull()) {
        std::string out(text);
        if (after_key == text.size()) out = with_newline(out);
        out.insert(std::min(after_key, out.size()),
                   fmt::format("  {}: {}\n", entry_key, flow_value));
        return out;
    }
    if (!map.IsMap() || map.Style() == YAML::EmitterStyle::Flow) {
        return fail(
            fmt::format("{}: is not written as a block mapping (one entry per line); "
                        "edit it by hand",
                        section_name));
    }
    int indent = 2;
    for (const auto& entry : map) {
        indent = entry.first.Mark().column;
        break;
    }
    const std::string line =
        fmt::format("{}{}: {}\n", std::string(indent, ' '), entry_key, flow_value);
    // Replace the entry's lines when it exists.
    auto removed = remove_entry(text, section_name, key);
    if (removed) {
        // The removal left its first line's start in place: put the new line there.
        for (const auto& entry : map) {
            if (!entry.first.IsScalar() || entry.first.Scalar() != key) continue;
            const std::size_t at = line_start(*removed, entry.first.Mark().line);
            std::string out = *removed;
            out.insert(at, line);
            return out;
        }
    }
    std::string out(text);
    out.insert(after_key, line);
    return out;
}

Result<std::string> remove_entry(std::string_view text, std::string_view section_name,
                                 std::string_view key) {
    auto document = load(text);
    if (!document) return std::unexpected(document.error());
    auto section = find_section(*document, section_name);
    if (!section || !section->value.IsMap()) {
        return fail(fmt::format("the policy has no {} entry {}", section_name, quote_escaped(key)));
    }
    if (section->value.Style() == YAML::EmitterStyle::Flow) {
        return fail(
            fmt::format("{}: is not written as a block mapping; edit it by hand", section_name));
    }
    std::optional<int> first_line;
    std::optional<int> end_line = section->next_top_line;
    for (const auto& entry : section->value) {
        if (first_line) {
            end_line = entry.first.Mark().line;
            break;
        }
        if (entry.first.IsScalar() && entry.first.Scalar() == key)
            first_line = entry.first.Mark().line;
    }
    if (!first_line) {
        return fail(fmt::format("the policy has no {} entry {}", section_name, quote_escaped(key)));
    }
    // Line starts, with the end of the text as the start of one line past the last.
    std::vector<std::size_t> starts{0};
    for (std::size_t at = text.find('\n'); at != std::string_view::npos;
         at = text.find('\n', at + 1)) {
        if (at + 1 < text.size()) starts.push_back(at + 1);
    }
    const int line_count = static_cast<int>(starts.size());
    starts.push_back(text.size());
    auto line = [&](int index) {
        const std::size_t begin = starts[static_cast<std::size_t>(index)];
        return text.substr(begin, starts[static_cast<std::size_t>(index) + 1] - begin);
    };
    int end = std::min(end_line.value_or(line_count), line_count);
    // Comment and blank lines just before the next entry introduce that entry: keep them.
    while (end - 1 > *first_line && blank_or_comment(line(end - 1))) --end;
    std::string out(text);
    const std::size_t begin = starts[static_cast<std::size_t>(*first_line)];
    out.erase(begin, starts[static_cast<std::size_t>(end)] - begin);
    return out;
}

std::string user_flow(const UserRule& rule, const Enforcement& inherited) {
    std::vector<std::string> fields;
    add_limits(fields, rule.limits);
    if (rule.allowed_gpus) fields.push_back("allowed_gpus: " + list_text(*rule.allowed_gpus));
    if (!rule.blocked_gpus.empty())
        fields.push_back("blocked_gpus: " + list_text(rule.blocked_gpus));
    add_enforcement(fields, rule.enforcement, inherited);
    return flow(fields);
}

std::string group_flow(const GroupRule& rule, const Enforcement& inherited) {
    std::vector<std::string> fields;
    if (rule.members) fields.push_back("members: " + list_text(*rule.members));
    add_limits(fields, rule.limits);
    add_enforcement(fields, rule.enforcement, inherited);
    return flow(fields);
}

std::string gpu_flow(const GpuRule& rule, const Enforcement& inherited) {
    std::vector<std::string> fields;
    if (rule.allowed_users) fields.push_back("allowed_users: " + list_text(*rule.allowed_users));
    if (rule.allowed_executables) {
        fields.push_back("allowed_executables: " + list_text(*rule.allowed_executables));
    }
    if (rule.reserved_memory_bytes) {
        fields.push_back("reserved_memory: " + size_text(*rule.reserved_memory_bytes));
    }
    if (rule.user_memory_limit_bytes) {
        fields.push_back("user_memory_limit: " + size_text(*rule.user_memory_limit_bytes));
    }
    if (rule.exclusive) fields.push_back("exclusive: true");
    add_enforcement(fields, rule.enforcement, inherited);
    return flow(fields);
}

}  // namespace gpukill::guard
