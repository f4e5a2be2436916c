// History settings: defaults, CONFIG_DIR/history.yaml (strict, with positions), and
// the environment variables that override it.
#include <gtest/gtest.h>

#include <map>

#include "../host/host_test_support.hpp"
#include "history/history_settings.hpp"

namespace gpukill::history {
namespace {

EnvironmentLookup env_of(std::map<std::string, std::string> vars) {
    return [vars = std::move(vars)](const char* name) -> std::optional<std::string> {
        auto found = vars.find(name);
        if (found == vars.end()) return std::nullopt;
        return found->second;
    };
}

TEST(HistorySettings, DefaultsRecordEveryTenSecondsForThirtyDays) {
    auto settings = load_history_settings("", env_of({}));
    ASSERT_TRUE(settings);
    EXPECT_TRUE(settings->enabled);
    EXPECT_EQ(settings->retention_days, 30);
    EXPECT_EQ(settings->min_interval_seconds, 10);
    const UsageStoreOptions options = settings->store_options();
    EXPECT_EQ(options.retention_days, 30);
    EXPECT_EQ(options.min_interval_ms, 10'000);
}

TEST(HistorySettings, TheFileSetsEveryKey) {
    auto settings = parse_history_settings(
        "# keep a week, sample at most every 30 s\nenabled: true\nretention_days: 7\n"
        "min_interval_seconds: 2.5\n",
        "history.yaml");
    ASSERT_TRUE(settings) << settings.error().what;
    EXPECT_EQ(settings->retention_days, 7);
    EXPECT_EQ(settings->min_interval_seconds, 2.5);
    EXPECT_EQ(settings->store_options().min_interval_ms, 2500);
    auto off = parse_history_settings("enabled: false", "history.yaml");
    ASSERT_TRUE(off);
    EXPECT_FALSE(off->enabled);
    auto empty = parse_history_settings("", "history.yaml");
    ASSERT_TRUE(empty);
    EXPECT_EQ(empty->retention_days, 30);
}

TEST(HistorySettings, BadFilesAreOneLineWithThePosition) {
    const std::map<std::string, std::string> cases = {
        {"retention_day: 7",
         "/etc/gpukill/history.yaml:1:1: unknown key \"retention_day\" "
         "(expected enabled, retention_days, min_interval_seconds)"},
        {"retention_days: 0",
         "/etc/gpukill/history.yaml:1:17: retention_days must be more than 0 and at most 36500, "
         "not \"0\""},
        {"retention_days: '7'", "/etc/gpukill/history.yaml:1:17: retention_days must be a number"},
        {"retention_days: 7d",
         "/etc/gpukill/history.yaml:1:17: retention_days must be a number, not \"7d\""},
        {"min_interval_seconds: -1",
         "/etc/gpukill/history.yaml:1:23: min_interval_seconds must be at least 0 and at most "
         "86400, not \"-1\""},
        {"enabled: yes",
         "/etc/gpukill/history.yaml:1:10: enabled must be true or false, not \"yes\""},
        {"enabled: true\nenabled: false",
         "/etc/gpukill/history.yaml:2:1: key enabled appears twice"},
        {"[1, 2]",
         "/etc/gpukill/history.yaml:1:1: expected a mapping with the keys enabled, retention_days, "
         "min_interval_seconds"},
    };
    for (const auto& [text, expected] : cases) {
        auto parsed = parse_history_settings(text, "/etc/gpukill/history.yaml");
        ASSERT_FALSE(parsed) << text;
        EXPECT_EQ(parsed.error().what, expected) << text;
    }
}

TEST(HistorySettings, TheEnvironmentWinsOverTheFile) {
    host_test::TempDir dir;
    host_test::write_file(dir / "history.yaml", "retention_days: 7\nmin_interval_seconds: 60\n");
    auto from_file = load_history_settings(dir.path(), env_of({}));
    ASSERT_TRUE(from_file) << from_file.error().what;
    EXPECT_EQ(from_file->retention_days, 7);
    EXPECT_EQ(from_file->min_interval_seconds, 60);
    auto overridden =
        load_history_settings(dir.path(), env_of({{"GPUKILL_HISTORY_RETENTION_DAYS", "90"},
                                                  {"GPUKILL_HISTORY_MIN_INTERVAL_SECONDS", "0"}}));
    ASSERT_TRUE(overridden);
    EXPECT_EQ(overridden->retention_days, 90);
    EXPECT_EQ(overridden->min_interval_seconds, 0);
    EXPECT_TRUE(overridden->enabled);
}

TEST(HistorySettings, NoHistoryTurnsRecordingOff) {
    for (const char* value : {"1", "true", "yes"}) {
        auto settings = load_history_settings("", env_of({{"GPUKILL_NO_HISTORY", value}}));
        ASSERT_TRUE(settings);
        EXPECT_FALSE(settings->enabled) << value;
    }
    for (const char* value : {"0", "false", "no", ""}) {
        auto settings = load_history_settings("", env_of({{"GPUKILL_NO_HISTORY", value}}));
        ASSERT_TRUE(settings);
        EXPECT_TRUE(settings->enabled) << value;
    }
    auto bad = load_history_settings("", env_of({{"GPUKILL_NO_HISTORY", "please"}}));
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().what, "GPUKILL_NO_HISTORY must be 1 or 0, not \"please\"");
}

TEST(HistorySettings, BadVariablesNameThemselves) {
    auto days = load_history_settings("", env_of({{"GPUKILL_HISTORY_RETENTION_DAYS", "forever"}}));
    ASSERT_FALSE(days);
    EXPECT_EQ(days.error().what,
              "GPUKILL_HISTORY_RETENTION_DAYS must be a number, not \"forever\"");
    auto interval =
        load_history_settings("", env_of({{"GPUKILL_HISTORY_MIN_INTERVAL_SECONDS", "1e9"}}));
    ASSERT_FALSE(interval);
    EXPECT_EQ(interval.error().what,
              "GPUKILL_HISTORY_MIN_INTERVAL_SECONDS must be at least 0 and at most 86400, not "
              "\"1e9\"");
}

TEST(HistorySettings, AnUnreadableFileIsAnErrorNotTheDefaults) {
    host_test::TempDir dir;
    std::filesystem::create_directory(dir / "history.yaml");  // a directory: cannot be read
    auto settings = load_history_settings(dir.path(), env_of({}));
    ASSERT_FALSE(settings);
    EXPECT_NE(settings.error().what.find(dir / "history.yaml"), std::string::npos);
}

}  // namespace
}  // namespace gpukill::history

namespace gpukill::history {
namespace {

// The shared reader's booleans (YAML 1.2's core schema), as every other config file.
TEST(HistorySettings, EnabledTakesTheSameBooleansAsEveryConfigFile) {
    for (const char* text : {"enabled: false", "enabled: False", "enabled: FALSE"}) {
        auto parsed = parse_history_settings(text, "history.yaml");
        ASSERT_TRUE(parsed) << text << ": " << parsed.error().what;
        EXPECT_FALSE(parsed->enabled) << text;
    }
}

}  // namespace
}  // namespace gpukill::history
