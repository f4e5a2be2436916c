// After a reset: is the GPU back, idle and unheld? On hand-built snapshots.
#include <gtest/gtest.h>

#include <vector>

#include "reclaim/reset_verify.hpp"

namespace gpukill {
namespace {

constexpr std::uint64_t kMiB = 1ULL << 20;
constexpr std::uint64_t kGiB = 1ULL << 30;

reclaim::ResetGpu planned(unsigned index, std::string bus) {
    reclaim::ResetGpu gpu;
    gpu.index = index;
    gpu.pci_bus_id = std::move(bus);
    gpu.memory_used_before_bytes = 4 * kGiB;
    return gpu;
}

Snapshot with_gpu(unsigned index, std::string bus, std::uint64_t used, bool lost = false) {
    Snapshot snapshot;
    Gpu gpu;
    gpu.index = index;
    gpu.reading.pci_bus_id = std::move(bus);
    gpu.reading.memory_total_bytes = 80 * kGiB;
    gpu.reading.memory_used_bytes = used;
    gpu.reading.lost = lost;
    snapshot.gpus.push_back(gpu);
    return snapshot;
}

TEST(ResetVerify, IdleToleranceIsOnePercentWithAFloor) {
    EXPECT_EQ(reclaim::idle_memory_tolerance_bytes(std::nullopt), 64 * kMiB);
    EXPECT_EQ(reclaim::idle_memory_tolerance_bytes(4 * kGiB), 64 * kMiB);
    EXPECT_EQ(reclaim::idle_memory_tolerance_bytes(100 * kGiB), kGiB);
}

TEST(ResetVerify, AnIdleGpuAtItsAddressIsOk) {
    auto check =
        reclaim::evaluate_reset(planned(0, "0000:18:00.0"), with_gpu(0, "0000:18:00.0", 2 * kMiB));
    EXPECT_TRUE(check.found);
    EXPECT_TRUE(check.memory_judged);
    EXPECT_TRUE(check.memory_free);
    EXPECT_TRUE(check.ok);
    EXPECT_EQ(check.memory_used_after_bytes, 2 * kMiB);
}

TEST(ResetVerify, MissingLostHeldOrStillUsedIsNotOk) {
    const auto gpu = planned(0, "0000:18:00.0");
    EXPECT_FALSE(reclaim::evaluate_reset(gpu, with_gpu(0, "0000:2a:00.0", 0)).found);
    auto lost = reclaim::evaluate_reset(gpu, with_gpu(0, "0000:18:00.0", 0, true));
    EXPECT_TRUE(lost.lost);
    EXPECT_FALSE(lost.ok);
    auto used = reclaim::evaluate_reset(gpu, with_gpu(0, "0000:18:00.0", 4 * kGiB));
    EXPECT_FALSE(used.memory_free);
    EXPECT_FALSE(used.ok);

    Snapshot held = with_gpu(0, "0000:18:00.0", 0);
    SnapshotProcess process;
    process.info.pid = 4242;
    process.gpus.push_back(ProcessGpuUse{.gpu_index = 0});
    held.processes.push_back(process);
    auto busy = reclaim::evaluate_reset(gpu, held);
    EXPECT_EQ(busy.holders, (std::vector<pid_t>{4242}));
    EXPECT_FALSE(busy.ok);
}

TEST(ResetVerify, DrmMemoryIsReportedButNotJudged) {
    Snapshot snapshot = with_gpu(0, "0000:03:00.0", 300 * kMiB);
    snapshot.gpus[0].reading.process_list_accounts_memory = false;
    auto check = reclaim::evaluate_reset(planned(0, "0000:03:00.0"), snapshot);
    EXPECT_FALSE(check.memory_judged);
    EXPECT_TRUE(check.ok);
}

TEST(ResetVerify, SamplesUntilEveryGpuIsOkAndKeepsTheFirstOk) {
    std::vector<Snapshot> samples = {with_gpu(0, "0000:18:00.0", 4 * kGiB),
                                     with_gpu(0, "0000:18:00.0", 0),
                                     with_gpu(0, "0000:18:00.0", 8 * kGiB)};
    std::size_t taken = 0;
    auto checks = reclaim::verify_reset(
        {planned(0, "0000:18:00.0")},
        [&] { return samples[std::min(taken++, samples.size() - 1)]; },
        reclaim::ResetVerifyOptions{.timeout_seconds = 5, .poll_interval_seconds = 0.001});
    ASSERT_EQ(checks.size(), 1u);
    EXPECT_TRUE(checks[0].ok);
    EXPECT_EQ(taken, 2u);
    EXPECT_TRUE(checks[0].seconds_to_ok.has_value());
}

TEST(ResetVerify, GivesUpAtTheTimeoutWithTheLastEvaluation) {
    std::size_t taken = 0;
    auto checks = reclaim::verify_reset(
        {planned(0, "0000:18:00.0")},
        [&] {
            ++taken;
            return with_gpu(0, "0000:18:00.0", 4 * kGiB);
        },
        reclaim::ResetVerifyOptions{.timeout_seconds = 0.05, .poll_interval_seconds = 0.01});
    EXPECT_FALSE(checks[0].ok);
    EXPECT_FALSE(checks[0].seconds_to_ok.has_value());
    EXPECT_GE(taken, 2u);
}

}  // namespace
}  // namespace gpukill
