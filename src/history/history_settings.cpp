#include "history/history_settings.hpp"

#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <set>

#include "host/proc_reader.hpp"
#include "model/quoted_text.hpp"
#include "model/yaml_load.hpp"
#include "model/yaml_reader.hpp"

namespace gpukill::history {
namespace {

constexpr const char* kKnownKeys = "enabled, retention_days, min_interval_seconds";

// The whole text as a finite decimal number; nothing else (no "1e400", "nan", "10s").
std::optional<double> parse_number(std::string_view text) {
    double value = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) {
        return std::nullopt;
    }
    return value;
}

// Checks a value's range; `what` names it in the message ("retention_days").
Result<double> in_range(std::optional<double> value, std::string_view text, std::string_view what,
                        bool zero_allowed, double maximum) {
    if (!value) return fail(fmt::format("{} must be a number, not {}", what, quote_escaped(text)));
    if (*value < 0 || (!zero_allowed && *value == 0) || *value > maximum) {
        return fail(fmt::format("{} must be {} {} and at most {}, not {}", what,
                                zero_allowed ? "at least" : "more than", 0, maximum,
                                quote_escaped(text)));
    }
    return *value;
}

Result<double> retention_days(std::string_view text, std::string_view what) {
    return in_range(parse_number(text), text, what, false, kMaxRetentionDays);
}

Result<double> min_interval(std::string_view text, std::string_view what) {
    return in_range(parse_number(text), text, what, true, kMaxMinIntervalSeconds);
}

Result<void> read_key(const YamlReader& reader, const std::string& key, const YAML::Node& value,
                      HistorySettings& settings) {
    const std::string text = value.IsScalar() ? value.Scalar() : "";
    auto located = [&](const Error& error) { return reader.error(value, error.what); };
    if (key == "enabled") {
        auto enabled = reader.boolean(value, key);
        if (!enabled) return std::unexpected(enabled.error());
        settings.enabled = *enabled;
        return {};
    }
    if (!is_plain_scalar(value))
        return reader.error(value, fmt::format("{} must be a number", key));
    if (key == "retention_days") {
        auto days = retention_days(text, key);
        if (!days) return located(days.error());
        settings.retention_days = *days;
        return {};
    }
    auto interval = min_interval(text, key);
    if (!interval) return located(interval.error());
    settings.min_interval_seconds = *interval;
    return {};
}

}  // namespace

UsageStoreOptions HistorySettings::store_options() const {
    UsageStoreOptions options;
    options.retention_days = retention_days;
    options.min_interval_ms = static_cast<std::int64_t>(std::llround(min_interval_seconds * 1000));
    return options;
}

Result<HistorySettings> parse_history_settings(std::string_view text, std::string_view source) {
    HistorySettings settings;
    const YamlReader reader{std::string(source)};
    auto loaded = reader.single_document(text);
    if (!loaded) return std::unexpected(loaded.error());
    if (!*loaded || (*loaded)->IsNull()) return settings;
    const YAML::Node& document = **loaded;
    if (!document.IsMap()) {
        return reader.error(document.Mark(),
                            fmt::format("expected a mapping with the keys {}", kKnownKeys));
    }
    std::set<std::string> seen;
    for (const auto& pair : document) {
        const std::string key = pair.first.IsScalar() ? pair.first.Scalar() : "";
        if (key != "enabled" && key != "retention_days" && key != "min_interval_seconds") {
            return reader.error(pair.first.Mark(), fmt::format("unknown key {} (expected {})",
                                                               quote_escaped(key), kKnownKeys));
        }
        if (!seen.insert(key).second) {
            return reader.error(pair.first.Mark(), fmt::format("key {} appears twice", key));
        }
        if (auto read = read_key(reader, key, pair.second, settings); !read) {
            return std::unexpected(read.error());
        }
    }
    return settings;
}

Result<HistorySettings> apply_history_environment(HistorySettings settings,
                                                  const EnvironmentLookup& env) {
    if (auto off = env("GPUKILL_NO_HISTORY"); off && !off->empty()) {
        if (*off == "1" || *off == "true" || *off == "yes") {
            settings.enabled = false;
        } else if (*off != "0" && *off != "false" && *off != "no") {
            return fail(
                fmt::format("GPUKILL_NO_HISTORY must be 1 or 0, not {}", quote_escaped(*off)));
        }
    }
    if (auto days = env("GPUKILL_HISTORY_RETENTION_DAYS"); days && !days->empty()) {
        auto value = retention_days(*days, "GPUKILL_HISTORY_RETENTION_DAYS");
        if (!value) return std::unexpected(value.error());
        settings.retention_days = *value;
    }
    if (auto interval = env("GPUKILL_HISTORY_MIN_INTERVAL_SECONDS");
        interval && !interval->empty()) {
        auto value = min_interval(*interval, "GPUKILL_HISTORY_MIN_INTERVAL_SECONDS");
        if (!value) return std::unexpected(value.error());
        settings.min_interval_seconds = *value;
    }
    return settings;
}

Result<HistorySettings> load_history_settings(const std::string& config_dir,
                                              const EnvironmentLookup& env) {
    HistorySettings settings;
    if (!config_dir.empty()) {
        const std::string path = config_dir + "/" + kHistorySettingsFileName;
        auto text = read_text_file(path);
        if (text) {
            auto parsed = parse_history_settings(*text, path);
            if (!parsed) return std::unexpected(parsed.error());
            settings = *parsed;
        } else if (text.error().errno_value != ENOENT) {
            return std::unexpected(text.error());
        }
    }
    return apply_history_environment(settings, env);
}

}  // namespace gpukill::history
