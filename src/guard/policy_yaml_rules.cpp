// guard.yaml's list sections: time windows and runaway rules.
#include <fmt/format.h>

#include "guard/policy_sections.hpp"
#include "guard/time_window.hpp"
#include "model/pattern.hpp"
#include "model/quoted_text.hpp"

namespace gpukill::guard::sections {
namespace {

// The position of character `offset` inside a scalar, for errors that point into it
// ("hours: 09:00-25:00" points at 25). Quoted scalars start one column later.
YAML::Mark mark_inside(const YAML::Node& node, std::size_t offset) {
    YAML::Mark mark = node.Mark();
    if (mark.is_null()) return mark;
    const bool quoted = node.Tag() == "!";
    mark.column += static_cast<int>(offset) + (quoted ? 1 : 0);
    return mark;
}

Result<std::set<int>> read_days(const YamlReader& fields, const YAML::Node& list,
                                std::string_view where) {
    std::set<int> days;
    auto read = fields.for_each_item(list, where, [&](const YAML::Node& item) -> Result<void> {
        const std::string text = item.IsScalar() ? item.Scalar() : "";
        auto parsed = parse_day_names(text);
        if (!parsed) return fields.error(item, fmt::format("{}: {}", where, parsed.error().what));
        days.insert(parsed->begin(), parsed->end());
        return {};
    });
    if (!read) return std::unexpected(read.error());
    if (list.IsNull() || (list.IsSequence() && list.size() == 0)) {
        return fields.error(list,
                            fmt::format("{} lists no day; leave it out for every day", where));
    }
    return days;
}

Result<void> read_hours(const YamlReader& fields, const YAML::Node& node, std::string_view where,
                        TimeWindow& window) {
    if (!node.IsScalar()) {
        return fields.error(node, fmt::format("{} must be a range such as \"09:00-18:00\"", where));
    }
    auto hours = parse_hours(node.Scalar());
    if (!hours) {
        return fields.error(mark_inside(node, hours.error().offset),
                            fmt::format("{}: {}", where, hours.error().what));
    }
    window.start_minute = hours->first;
    window.end_minute = hours->second;
    return {};
}

Result<void> read_window_users(const YamlReader& fields, const YAML::Node& map,
                               const std::string& where, TimeWindow& window) {
    return fields.for_each_entry(
        map, where,
        [&](const std::string& user, const YAML::Node&, const YAML::Node& body) -> Result<void> {
            Limits limits;
            const std::string user_where = where + "." + user;
            auto read = fields.for_each_key(
                body, user_where, {"memory_limit", "max_processes"},
                [&](const std::string& key, const YAML::Node&,
                    const YAML::Node& value) -> Result<void> {
                    return read_limit_key(fields, key, value, user_where, limits);
                },
                /*allow_null=*/false);
            if (!read) return read;
            window.users[user] = limits;
            return {};
        });
}

Result<TimeWindow> read_window(const YamlReader& fields, const YAML::Node& map,
                               std::size_t position, const Enforcement& inherited) {
    TimeWindow window{.enforcement = inherited, .mark = mark_of(map)};
    window.days = {0, 1, 2, 3, 4, 5, 6};
    std::string where = fmt::format("windows[{}]", position);
    if (map.IsMap() && map["name"] && map["name"].IsScalar()) {
        where = "windows." + map["name"].Scalar();
    }
    auto read = fields.for_each_key(
        map, where,
        {"name", "days", "hours", "memory_limit", "max_processes", "users", "action",
         "grace_period"},
        [&](const std::string& key, const YAML::Node&, const YAML::Node& value) -> Result<void> {
            if (key == "name") {
                auto name = fields.text(value, where + ".name");
                if (!name) return std::unexpected(name.error());
                window.name = *name;
                return {};
            }
            if (key == "days") {
                auto days = read_days(fields, value, where + ".days");
                if (!days) return std::unexpected(days.error());
                window.days = *days;
                return {};
            }
            if (key == "hours") return read_hours(fields, value, where + ".hours", window);
            if (key == "users") return read_window_users(fields, value, where + ".users", window);
            if (key == "action" || key == "grace_period") {
                return read_enforcement_key(fields, key, value, where, window.enforcement);
            }
            return read_limit_key(fields, key, value, where, window.limits);
        },
        /*allow_null=*/false);
    if (!read) return std::unexpected(read.error());
    if (window.name.empty()) return fields.error(map, where + " needs a name");
    if (window.limits.empty() && window.users.empty()) {
        return fields.error(map, where + " sets no limit (memory_limit, max_processes or users)");
    }
    return window;
}

// The keys each kind of rule takes.
std::span<const std::string_view> rule_keys(RunawayKind kind) {
    static constexpr std::string_view stuck[] = {
        "name", "kind", "action", "grace_period", "utilization_above", "for"};
    static constexpr std::string_view idle[] = {
        "name", "kind", "action", "grace_period", "memory_above", "utilization_at_most", "for"};
    static constexpr std::string_view orphaned[] = {"name", "kind", "action", "grace_period",
                                                    "pattern"};
    static constexpr std::string_view rogue[] = {"name", "kind", "action", "grace_period",
                                                 "score_above"};
    switch (kind) {
        case RunawayKind::stuck:
            return stuck;
        case RunawayKind::idle:
            return idle;
        case RunawayKind::orphaned:
            return orphaned;
        case RunawayKind::rogue:
            return rogue;
    }
    return {};
}

Result<RunawayKind> read_kind(const YamlReader& fields, const YAML::Node& map,
                              const std::string& where) {
    if (!map.IsMap()) return fields.error(map, where + " must be a mapping with name and kind");
    const YAML::Node kind = map["kind"];
    if (!kind) return fields.error(map, where + " needs a kind: stuck, idle, orphaned or rogue");
    const std::string text = kind.IsScalar() ? kind.Scalar() : "";
    for (RunawayKind candidate :
         {RunawayKind::stuck, RunawayKind::idle, RunawayKind::orphaned, RunawayKind::rogue}) {
        if (text == to_string(candidate)) return candidate;
    }
    return fields.error(kind, fmt::format("{}.kind must be stuck, idle, orphaned or rogue, not {}",
                                          where, quote_escaped(text)));
}

Result<void> check_pattern(const YamlReader& fields, const YAML::Node& node,
                           const std::string& where, const std::string& pattern) {
    auto compiled = Pattern::compile(pattern);
    if (!compiled) {
        return fields.error(node, fmt::format("{}: {} is not a pattern gpukill accepts: {}", where,
                                              quote_escaped(pattern), compiled.error().what));
    }
    return {};
}

Result<RunawayRule> read_rule(const YamlReader& fields, const YAML::Node& map, std::size_t position,
                              const Enforcement& inherited) {
    std::string where = fmt::format("rules[{}]", position);
    if (map.IsMap() && map["name"] && map["name"].IsScalar()) {
        where = "rules." + map["name"].Scalar();
    }
    auto kind = read_kind(fields, map, where);
    if (!kind) return std::unexpected(kind.error());
    RunawayRule rule{.kind = *kind, .enforcement = inherited, .mark = mark_of(map)};
    if (*kind == RunawayKind::idle) rule.duration = std::chrono::minutes(30);
    bool has_score = false;
    auto read = fields.for_each_key(
        map, where, rule_keys(*kind),
        [&](const std::string& key, const YAML::Node&, const YAML::Node& value) -> Result<void> {
            const std::string name = where + "." + key;
            if (key == "kind") return {};  // read above
            if (key == "name") {
                auto text = fields.text(value, name);
                if (!text) return std::unexpected(text.error());
                rule.name = *text;
            } else if (key == "action" || key == "grace_period") {
                return read_enforcement_key(fields, key, value, where, rule.enforcement);
            } else if (key == "utilization_above" || key == "utilization_at_most") {
                auto percent = fields.percent(value, name);
                if (!percent) return std::unexpected(percent.error());
                if (key == "utilization_above" && *percent == 100) {
                    return fields.error(value, name + " is 100%: utilisation is never above it");
                }
                (key == "utilization_above" ? rule.utilization_above_percent
                                            : rule.utilization_at_most_percent) = *percent;
            } else if (key == "for") {
                auto duration = fields.duration(value, name);
                if (!duration) return std::unexpected(duration.error());
                if (duration->count() == 0) {
                    return fields.error(value, name +
                                                   " must be longer than 0s: a sustained "
                                                   "condition needs time");
                }
                rule.duration = *duration;
            } else if (key == "memory_above") {
                auto bytes = fields.size(value, name);
                if (!bytes) return std::unexpected(bytes.error());
                rule.memory_above_bytes = *bytes;
            } else if (key == "pattern") {
                auto text = fields.text(value, name);
                if (!text) return std::unexpected(text.error());
                if (auto valid = check_pattern(fields, value, name, *text); !valid) return valid;
                rule.pattern = *text;
            } else {
                auto score = fields.number(value, name);
                if (!score) return std::unexpected(score.error());
                rule.score_above = *score;
                has_score = true;
            }
            return {};
        },
        /*allow_null=*/false);
    if (!read) return std::unexpected(read.error());
    if (rule.name.empty()) return fields.error(map, where + " needs a name");
    if (*kind == RunawayKind::rogue && !has_score) {
        return fields.error(map, where +
                                     " needs score_above (the rogue-detection score that "
                                     "triggers it)");
    }
    return rule;
}

}  // namespace

Result<std::vector<TimeWindow>> read_windows(const YamlReader& fields, const YAML::Node& list,
                                             const Enforcement& inherited) {
    std::vector<TimeWindow> windows;
    auto read = fields.for_each_item(list, "windows", [&](const YAML::Node& item) -> Result<void> {
        auto window = read_window(fields, item, windows.size(), inherited);
        if (!window) return std::unexpected(window.error());
        for (const TimeWindow& other : windows) {
            if (other.name == window->name) {
                return fields.error(item, fmt::format("windows: the name {} is used twice (also "
                                                      "at line {})",
                                                      quote_escaped(other.name), other.mark.line));
            }
        }
        windows.push_back(std::move(*window));
        return {};
    });
    if (!read) return std::unexpected(read.error());
    return windows;
}

Result<std::vector<RunawayRule>> read_runaway_rules(const YamlReader& fields,
                                                    const YAML::Node& list,
                                                    const Enforcement& inherited) {
    std::vector<RunawayRule> rules;
    auto read = fields.for_each_item(list, "rules", [&](const YAML::Node& item) -> Result<void> {
        auto rule = read_rule(fields, item, rules.size(), inherited);
        if (!rule) return std::unexpected(rule.error());
        for (const RunawayRule& other : rules) {
            if (other.name == rule->name) {
                return fields.error(item, fmt::format("rules: the name {} is used twice (also at "
                                                      "line {})",
                                                      quote_escaped(other.name), other.mark.line));
            }
        }
        rules.push_back(std::move(*rule));
        return {};
    });
    if (!read) return std::unexpected(read.error());
    return rules;
}

}  // namespace gpukill::guard::sections
