// The monitor's rows from a snapshot: one per process and GPU, hidden holders and
// orphans marked, memory nobody accounts for as its own row, other users' processes not
// actionable without privilege, CPU% between two readings.
#include <gtest/gtest.h>

#include "top/rows.hpp"
#include "top_test_support.hpp"

namespace gpukill::top {
namespace {

using top_test::Holder;
using top_test::host_with;
using top_test::kGiB;
using top_test::rows_of;

TEST(TopRows, HiddenHoldersOrphansAndUnaccountedMemoryAreMarked) {
    const Snapshot snapshot = host_with({{100, 1, "alice", 1000, "train", 0, 4 * kGiB},
                                         {101, 1, "alice", 1000, "worker", 0, std::nullopt, true}},
                                        2, 2 * kGiB);
    const std::vector<Row> rows = rows_of(snapshot);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].seen_by, "driver+file");
    EXPECT_FALSE(rows[0].hidden);
    EXPECT_EQ(rows[1].seen_by, "file only");
    EXPECT_TRUE(rows[1].hidden);
    EXPECT_TRUE(rows[1].orphaned);
    EXPECT_EQ(rows[2].kind, RowKind::unaccounted);
    EXPECT_EQ(rows[2].gpu, 0u);
    EXPECT_EQ(rows[2].gpu_memory_bytes, 2 * kGiB);
    EXPECT_FALSE(rows[2].actionable);
}

TEST(TopRows, TheContainerColumnNamesTheImageWhenTheRuntimeDoes) {
    Snapshot snapshot = host_with(
        {{100, 1, "alice", 1000, "train", 0, kGiB}, {101, 1, "alice", 1000, "eval", 1, kGiB}});
    snapshot.processes[0].info.container =
        ContainerInfo{.runtime = "docker",
                      .id = "3f2a9c1b0d4e5f60718293a4b5c6d7e8f90123456789abcdef0123456789abcd",
                      .pod_uid = std::nullopt,
                      .pod_namespace = std::nullopt,
                      .image = "nvcr.io/nvidia/pytorch:24.01-py3"};
    snapshot.processes[1].info.container =
        ContainerInfo{.runtime = "docker",
                      .id = "aa2a9c1b0d4e5f60718293a4b5c6d7e8f90123456789abcdef0123456789abcd",
                      .pod_uid = std::nullopt,
                      .pod_namespace = std::nullopt,
                      .image = std::nullopt};
    const std::vector<Row> rows = rows_of(snapshot);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].container, "pytorch:24.01-py3");
    EXPECT_EQ(rows[1].container, "docker:aa2a9c1b0d4e") << "no runtime answered: the id";
}

TEST(TopRows, AnotherUsersProcessIsNotActionableWithoutPrivilege) {
    const Snapshot snapshot = host_with(
        {{100, 1, "alice", 1000, "train", 0, kGiB}, {200, 1, "bob", 1001, "infer", 1, kGiB}});
    const std::vector<Row> as_alice = rows_of(snapshot, {.uid = 1000, .privileged = false});
    EXPECT_TRUE(as_alice[0].actionable);
    EXPECT_FALSE(as_alice[1].actionable);
    EXPECT_NE(as_alice[1].not_actionable_reason.find("bob"), std::string::npos);
    const std::vector<Row> as_root = rows_of(snapshot);
    EXPECT_TRUE(as_root[1].actionable);
}

TEST(TopRows, CpuPercentIsMeasuredBetweenTwoReadingsOfTheSameProcess) {
    EXPECT_EQ(cpu_percent(std::nullopt, {.cpu_ticks = 50, .rss_bytes = 0}, 1.0, 100), std::nullopt);
    auto half = cpu_percent(ProcessCpu{100, 0}, ProcessCpu{150, 0}, 1.0, 100);
    ASSERT_TRUE(half);
    EXPECT_DOUBLE_EQ(*half, 50.0);

    Snapshot snapshot = host_with({{100, 1, "alice", 1000, "train", 0, kGiB}});
    const std::pair<pid_t, std::uint64_t> id{100, 1100};
    const CpuReadings before{{id, {200, 1 << 20}}};
    const CpuReadings now{{id, {400, 2 << 20}}};
    const std::vector<Row> rows =
        build_rows(snapshot, now, before, 2.0, {.uid = 0, .privileged = true});
    ASSERT_TRUE(rows[0].cpu_percent);
    EXPECT_DOUBLE_EQ(*rows[0].cpu_percent, 100.0);
    EXPECT_EQ(rows[0].host_memory_bytes, 2u << 20);
    // A reused PID (another start time) has no previous reading.
    const CpuReadings other{{{100, 999}, {0, 0}}};
    EXPECT_FALSE(build_rows(snapshot, now, other, 2.0, {})[0].cpu_percent);
}

TEST(TopRows, RunningTimeComesFromTheStartTimeAndBootTime) {
    Snapshot snapshot = host_with({{100, 1, "alice", 1000, "train", 0, kGiB}});
    snapshot.processes[0].info.start_time_ticks = 100 * 60;  // a minute after boot
    const std::vector<Row> rows = rows_of(snapshot);
    ASSERT_TRUE(rows[0].running_seconds);
    EXPECT_EQ(*rows[0].running_seconds, 3600 - 60);
    EXPECT_EQ(format_duration(3540), "59:00");
    EXPECT_EQ(format_duration(3723), "1:02:03");
    EXPECT_EQ(format_duration(2 * 86400 + 3 * 3600), "2d03h");
}

}  // namespace
}  // namespace gpukill::top
