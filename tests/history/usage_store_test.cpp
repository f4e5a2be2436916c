// The usage history store: what goes in comes back (time-ordered, filtered), snapshots
// too close together are skipped, and retention deletes old samples at most once a
// minute and gives the space back. Times are the snapshots' own, so nothing sleeps.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "../host/host_test_support.hpp"
#include "history/usage_store.hpp"
#include "usage_test_support.hpp"

namespace gpukill::history {
namespace {

using host_test::TempDir;
using namespace usage_test;

std::unique_ptr<UsageStore> open_store(const std::string& dir, UsageStoreOptions options = {}) {
    auto store = UsageStore::open(dir, options);
    if (!store) throw std::runtime_error(store.error().what);
    return std::move(*store);
}

TEST(UsageStore, WhatIsRecordedComesBackInTimeOrder) {
    TempDir dir;
    auto store = open_store(dir.path());
    ProcessSpec trainer{.pid = 4242, .gpus = {{0, 3 * kGiB}, {1, kGiB}}, .container = "abc123"};
    ProcessSpec other{.pid = 5000,
                      .uid = 1001,
                      .user = "bob",
                      .name = "llama",
                      .cmdline = {"llama", "--model", "my model.gguf"},
                      .gpus = {{1, std::nullopt}},
                      .orphaned = true};
    ASSERT_TRUE(store->record(
        make_snapshot(kBase + 10 * kSecond, {make_gpu(0, 90), make_gpu(1, 10)}, {trainer, other})));
    ASSERT_TRUE(store->record(make_snapshot(kBase, {make_gpu(0, 80), make_gpu(1, 20)}, {trainer})));

    auto gpus = store->gpu_samples({});
    ASSERT_TRUE(gpus) << gpus.error().what;
    ASSERT_EQ(gpus->size(), 4u);
    EXPECT_EQ((*gpus)[0].time_unix_ms, kBase);
    EXPECT_EQ((*gpus)[0].gpu_index, 0u);
    EXPECT_EQ((*gpus)[0].utilization_percent, 80u);
    EXPECT_EQ((*gpus)[0].gpu_uuid, "GPU-00000000");
    EXPECT_EQ((*gpus)[0].gpu_name, "Simulated H100");
    EXPECT_EQ((*gpus)[0].pci_bus_id, "0000:00:00.0");
    EXPECT_EQ((*gpus)[0].memory_total_bytes, 80 * kGiB);
    EXPECT_EQ((*gpus)[0].memory_used_bytes, 2 * kGiB);
    EXPECT_EQ((*gpus)[0].temperature_celsius, 40);
    EXPECT_EQ((*gpus)[0].power_watts, 123.5);
    EXPECT_EQ((*gpus)[0].process_count, 1u);
    EXPECT_EQ((*gpus)[3].time_unix_ms, kBase + 10 * kSecond);
    EXPECT_EQ((*gpus)[3].process_count, 2u);

    auto processes = store->process_samples({});
    ASSERT_TRUE(processes) << processes.error().what;
    ASSERT_EQ(processes->size(), 5u);  // 2 at kBase, 3 ten seconds later
    const ProcessSample& first = (*processes)[0];
    EXPECT_EQ(first.time_unix_ms, kBase);
    EXPECT_EQ(first.gpu_index, 0u);
    EXPECT_EQ(first.gpu_uuid, "GPU-00000000");
    EXPECT_EQ(first.pid, 4242);
    EXPECT_EQ(first.start_time_ticks, 1000u);
    EXPECT_EQ(first.uid, 1000u);
    EXPECT_EQ(first.user, "alice");
    EXPECT_EQ(first.name, "python");
    EXPECT_EQ(first.command, "python train.py");
    EXPECT_EQ(first.container, "abc123");
    EXPECT_EQ(first.memory_bytes, 3 * kGiB);
    EXPECT_EQ(first.gpu_utilization_percent, 80u);
    EXPECT_EQ(first.gpu_process_count, 1u);
    EXPECT_FALSE(first.orphaned);
    // Boot an hour before kBase, started 10 s (1000 ticks) after boot.
    EXPECT_EQ(first.start_time_unix_ms, kBase - kHour + 10 * kSecond);
    const ProcessSample& llama = (*processes)[4];
    EXPECT_EQ(llama.pid, 5000);
    EXPECT_EQ(llama.gpu_index, 1u);
    EXPECT_EQ(llama.command, "llama --model 'my model.gguf'");
    EXPECT_EQ(llama.memory_bytes, std::nullopt);
    EXPECT_EQ(llama.gpu_utilization_percent, 10u);
    EXPECT_EQ(llama.gpu_process_count, 2u);
    EXPECT_TRUE(llama.orphaned);
}

TEST(UsageStore, QueriesFilterByWindowUserProcessAndGpu) {
    TempDir dir;
    auto store = open_store(dir.path());
    ProcessSpec alice{.pid = 100, .start_ticks = 7, .gpus = {{0, kGiB}}};
    ProcessSpec reused{
        .pid = 100, .start_ticks = 9999, .uid = 1001, .user = "bob", .gpus = {{1, kGiB}}};
    for (int i = 0; i < 3; ++i) {
        ASSERT_TRUE(store->record(
            make_snapshot(kBase + i * kMinute, {make_gpu(0), make_gpu(1)}, {alice, reused})));
    }
    auto count = [&](const SampleQuery& query) {
        auto samples = store->process_samples(query);
        EXPECT_TRUE(samples) << samples.error().what;
        return samples ? samples->size() : 0;
    };
    EXPECT_EQ(count({}), 6u);
    // [since, until): the sample at `until` is out.
    EXPECT_EQ(count({.since_unix_ms = kBase + kMinute, .until_unix_ms = kBase + 2 * kMinute}), 2u);
    EXPECT_EQ(count({.uid = 1001}), 3u);
    EXPECT_EQ(count({.user = "alice"}), 3u);
    EXPECT_EQ(count({.user = "ali"}), 0u);  // exact, never a prefix
    EXPECT_EQ(count({.pid = 100}), 6u);
    EXPECT_EQ(count({.pid = 100, .start_time_ticks = 9999}), 3u);
    EXPECT_EQ(count({.gpu_index = 0}), 3u);
    auto gpu1 = store->gpu_samples({.gpu_index = 1});
    ASSERT_TRUE(gpu1);
    EXPECT_EQ(gpu1->size(), 3u);
}

TEST(UsageStore, ProcessesWithoutDetailsOrGpusAreNotRecorded) {
    TempDir dir;
    auto store = open_store(dir.path());
    ProcessSpec exited{.pid = 1, .info_complete = false};
    ProcessSpec driver_nodes_only{.pid = 2, .gpus = {}};
    ProcessSpec kept{.pid = 3};
    ASSERT_TRUE(
        store->record(make_snapshot(kBase, {make_gpu(0)}, {exited, driver_nodes_only, kept})));
    auto samples = store->process_samples({});
    ASSERT_TRUE(samples);
    ASSERT_EQ(samples->size(), 1u);
    EXPECT_EQ((*samples)[0].pid, 3);
}

TEST(UsageStore, ARenamedProcessKeepsItsIdentityAndBothNames) {
    TempDir dir;
    auto store = open_store(dir.path());
    ProcessSpec before{.pid = 77, .name = "python"};
    ProcessSpec after = before;
    after.name = "kworker";
    ASSERT_TRUE(store->record(make_snapshot(kBase, {make_gpu(0)}, {before})));
    ASSERT_TRUE(store->record(make_snapshot(kBase + kMinute, {make_gpu(0)}, {after})));
    auto samples = store->process_samples({.pid = 77, .start_time_ticks = 1000});
    ASSERT_TRUE(samples);
    ASSERT_EQ(samples->size(), 2u);
    EXPECT_EQ((*samples)[0].name, "python");
    EXPECT_EQ((*samples)[1].name, "kworker");
}

TEST(UsageStore, SnapshotsCloserThanTheMinimumIntervalAreSkippedAcrossWriters) {
    TempDir dir;
    const UsageStoreOptions options{.min_interval_ms = 10 * kSecond};
    auto first = open_store(dir.path(), options);
    auto second = open_store(dir.path(), options);  // another gpukill run
    ASSERT_TRUE(first->record(make_snapshot(kBase, {make_gpu(0)}, {{}})));
    ASSERT_TRUE(second->record(make_snapshot(kBase + 4 * kSecond, {make_gpu(0)}, {{}})));
    ASSERT_TRUE(first->record(make_snapshot(kBase + 10 * kSecond, {make_gpu(0)}, {{}})));
    ASSERT_TRUE(second->record(make_snapshot(kBase + 15 * kSecond, {make_gpu(0)}, {{}})));
    auto samples = first->gpu_samples({});
    ASSERT_TRUE(samples);
    ASSERT_EQ(samples->size(), 2u);
    EXPECT_EQ((*samples)[0].time_unix_ms, kBase);
    EXPECT_EQ((*samples)[1].time_unix_ms, kBase + 10 * kSecond);
}

TEST(UsageStore, TheSameMillisecondIsStoredOnceEvenWithoutAnInterval) {
    TempDir dir;
    auto store = open_store(dir.path());
    ASSERT_TRUE(store->record(make_snapshot(kBase, {make_gpu(0)}, {{}})));
    ASSERT_TRUE(store->record(make_snapshot(kBase, {make_gpu(0)}, {{}})));
    ASSERT_TRUE(store->record(make_snapshot(kBase + 1, {make_gpu(0)}, {{}})));
    auto samples = store->process_samples({});
    ASSERT_TRUE(samples);
    EXPECT_EQ(samples->size(), 2u);
}

TEST(UsageStore, RetentionDeletesOldSamplesAndTheirProcessesAtMostOnceAMinute) {
    TempDir dir;
    // Retention of one millisecond makes every earlier sample expired at once.
    auto store = open_store(dir.path(), {.retention_days = 1.0 / 86'400'000});
    ProcessSpec early{.pid = 10};
    ProcessSpec late{.pid = 20};
    ASSERT_TRUE(store->record(make_snapshot(kBase, {make_gpu(0)}, {early})));
    ASSERT_TRUE(store->record(make_snapshot(kBase + 30 * kSecond, {make_gpu(0)}, {late})));
    auto samples = store->process_samples({});
    ASSERT_TRUE(samples);
    EXPECT_EQ(samples->size(), 2u) << "retention ran twice within a minute";

    ASSERT_TRUE(store->record(make_snapshot(kBase + 61 * kSecond, {make_gpu(0)}, {late})));
    samples = store->process_samples({});
    ASSERT_TRUE(samples);
    ASSERT_EQ(samples->size(), 1u);
    EXPECT_EQ((*samples)[0].time_unix_ms, kBase + 61 * kSecond);
    RawDb raw(store->path());
    EXPECT_EQ(raw.integer("SELECT count(*) FROM processes"), 1);
    EXPECT_EQ(raw.integer("SELECT count(*) FROM gpu_samples"), 1);
}

TEST(UsageStore, DefaultRetentionKeepsThirtyDays) {
    TempDir dir;
    auto store = open_store(dir.path());
    ASSERT_TRUE(store->record(make_snapshot(kBase, {make_gpu(0)}, {{}})));
    ASSERT_TRUE(store->record(make_snapshot(kBase + 29 * kDay, {make_gpu(0)}, {{}})));
    ASSERT_TRUE(store->enforce_retention(kBase + 29 * kDay));
    EXPECT_EQ(store->gpu_samples({})->size(), 2u);
    ASSERT_TRUE(store->enforce_retention(kBase + 30 * kDay + 1));
    EXPECT_EQ(store->gpu_samples({})->size(), 1u);
}

TEST(UsageStore, RetentionGivesTheSpaceBack) {
    TempDir dir;
    auto store = open_store(dir.path());
    std::vector<ProcessSpec> many;
    for (int p = 0; p < 20; ++p) {
        many.push_back(ProcessSpec{
            .pid = 1000 + p,
            .cmdline = {"python", "train.py", std::string(1500, 'x'), std::to_string(p)}});
    }
    for (int i = 0; i < 150; ++i) {
        // New processes each time, so their long command lines are stored each time.
        for (ProcessSpec& spec : many) spec.start_ticks = 1000 + static_cast<std::uint64_t>(i);
        ASSERT_TRUE(store->record(make_snapshot(kBase + i * kMinute, {make_gpu(0)}, many)));
    }
    RawDb raw(store->path());
    const std::int64_t pages_before = raw.integer("PRAGMA page_count");
    ASSERT_GT(pages_before, 200);
    ASSERT_TRUE(store->enforce_retention(kBase + 365 * kDay));
    const std::int64_t pages_after = raw.integer("PRAGMA page_count");
    EXPECT_LT(pages_after, pages_before / 4) << pages_before << " -> " << pages_after;
    EXPECT_EQ(store->process_samples({})->size(), 0u);
}

TEST(UsageStore, TheFileIsTaggedAsOursInWalModeWithPrivateModes) {
    TempDir dir;
    const mode_t old_mask = ::umask(022);
    const std::string state = dir / "state/nested";
    auto store = open_store(state);
    ::umask(old_mask);
    struct stat st {};
    ASSERT_EQ(::stat(state.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0750u);
    ASSERT_EQ(::stat(store->path().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0640u);
    EXPECT_EQ(store->path(), state + "/usage.sqlite3");
    RawDb raw(store->path());
    EXPECT_EQ(raw.integer("PRAGMA application_id"), 0x6770756b);
    EXPECT_EQ(raw.integer("PRAGMA user_version"), 1);
    EXPECT_EQ(raw.integer("PRAGMA auto_vacuum"), 2);  // incremental
    EXPECT_EQ(raw.text("PRAGMA journal_mode"), "wal");
    EXPECT_EQ(raw.text("SELECT value FROM meta WHERE key = 'application'"),
              "gpukill usage history");
}

TEST(UsageStore, ReadOnlyOpenFindsTheSamplesAndRefusesToWrite) {
    TempDir dir;
    auto writer = open_store(dir.path());
    ASSERT_TRUE(writer->record(make_snapshot(kBase, {make_gpu(0)}, {{}})));
    auto reader = UsageStore::open_read_only(dir.path());
    ASSERT_TRUE(reader) << reader.error().what;
    EXPECT_EQ((*reader)->process_samples({})->size(), 1u);
    auto written = (*reader)->record(make_snapshot(kBase + kMinute, {make_gpu(0)}, {{}}));
    ASSERT_FALSE(written);
    EXPECT_NE(written.error().what.find(dir.path() + "/usage.sqlite3"), std::string::npos);
    EXPECT_NE(written.error().what.find("read-only"), std::string::npos) << written.error().what;
}

TEST(UsageStore, ReadOnlyOpenOfNoHistorySaysWhereItWillBe) {
    TempDir dir;
    auto missing = UsageStore::open_read_only(dir.path());
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().errno_value, ENOENT);
    EXPECT_EQ(missing.error().what, "no usage history at " + dir.path() +
                                        "/usage.sqlite3 yet; it is recorded by gpukill list and "
                                        "gpukill list --watch");
    host_test::write_file(dir / "usage.sqlite3", "");
    auto empty = UsageStore::open_read_only(dir.path());
    ASSERT_FALSE(empty);
    EXPECT_EQ(empty.error().errno_value, ENOENT);
    // An empty file is a new database to a writer.
    auto store = UsageStore::open(dir.path());
    ASSERT_TRUE(store) << store.error().what;
}

}  // namespace
}  // namespace gpukill::history
