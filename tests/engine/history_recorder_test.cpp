// Recording from `list` and `watch`: a broken history costs one warning per run,
// however many frames; disabled recording touches nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "../history/usage_test_support.hpp"
#include "../host/host_test_support.hpp"
#include "engine/history_recorder.hpp"
#include "history/usage_store.hpp"

namespace gpukill::engine {
namespace {

using namespace usage_test;

history::EnvironmentLookup env_of(std::map<std::string, std::string> vars) {
    return [vars = std::move(vars)](const char* name) -> std::optional<std::string> {
        auto found = vars.find(name);
        if (found == vars.end()) return std::nullopt;
        return found->second;
    };
}

// Records each snapshot; the warnings the recorder returned, one per line.
std::string record_all(HistoryRecorder& recorder, const std::vector<Snapshot>& snapshots) {
    std::string warnings;
    for (const Snapshot& snapshot : snapshots) {
        if (auto warning = recorder.record(snapshot)) warnings += *warning + "\n";
    }
    return warnings;
}

const std::map<std::string, std::string> kEverySample = {
    {"GPUKILL_HISTORY_MIN_INTERVAL_SECONDS", "0"}};

TEST(HistoryRecorder, RecordsEveryFrameOfARun) {
    host_test::TempDir dir;
    HistoryRecorder recorder(dir / "state", dir / "config", env_of(kEverySample));
    std::vector<Snapshot> frames;
    for (int frame = 0; frame < 3; ++frame) {
        frames.push_back(make_snapshot(kBase + frame * kSecond, {make_gpu(0)}, {{}}));
    }
    EXPECT_EQ(record_all(recorder, frames), "");
    auto store = history::UsageStore::open_read_only(dir / "state");
    ASSERT_TRUE(store) << store.error().what;
    EXPECT_EQ((*store)->gpu_samples({})->size(), 3u);
}

TEST(HistoryRecorder, ABrokenHistoryWarnsOncePerRun) {
    host_test::TempDir dir;
    host_test::write_file(dir / "state/usage.sqlite3", std::string(8192, 'j'));
    HistoryRecorder recorder(dir / "state", dir / "config", env_of(kEverySample));
    std::vector<Snapshot> frames;
    for (int frame = 0; frame < 3; ++frame) {
        frames.push_back(make_snapshot(kBase + frame * kSecond, {make_gpu(0)}, {{}}));
    }
    EXPECT_EQ(record_all(recorder, frames),
              "usage history not recorded: cannot read usage history " +
                  (dir / "state/usage.sqlite3") +
                  ": not an SQLite database (a foreign or damaged file); gpukill will not "
                  "overwrite it; move it aside to start a new history\n");
}

TEST(HistoryRecorder, BadSettingsWarnOnceAndRecordNothing) {
    host_test::TempDir dir;
    host_test::write_file(dir / "config/history.yaml", "retention_days: never\n");
    HistoryRecorder recorder(dir / "state", dir / "config", env_of({}));
    EXPECT_EQ(record_all(recorder, {make_snapshot(kBase, {make_gpu(0)}, {{}}),
                                    make_snapshot(kBase + kMinute, {make_gpu(0)}, {{}})}),
              "usage history not recorded: " + (dir / "config/history.yaml") +
                  ":1:17: retention_days must be a number, not \"never\"\n");
    EXPECT_FALSE(std::filesystem::exists(dir / "state"));
}

TEST(HistoryRecorder, DisabledRecordingCreatesNothing) {
    host_test::TempDir dir;
    HistoryRecorder recorder(dir / "state", dir / "config", env_of({{"GPUKILL_NO_HISTORY", "1"}}));
    EXPECT_EQ(record_all(recorder, {make_snapshot(kBase, {make_gpu(0)}, {{}})}), "");
    EXPECT_FALSE(std::filesystem::exists(dir / "state"));
}

}  // namespace
}  // namespace gpukill::engine
