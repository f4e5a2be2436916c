// Whether the memory came back: evaluate_release over hand-built snapshots, and the
// bounded re-sampling loop of verify_release over a scripted sampler.
#include <gtest/gtest.h>

#include <chrono>

#include "fake_host.hpp"
#include "reclaim/verify.hpp"

namespace gpukill::reclaim {
namespace {

using reclaim_test::kGiB;

constexpr std::uint64_t kMiB = 1ULL << 20;

// One target, PID 200, planned on GPU 0 with 30 GiB used and `expected` to come back.
KillPlan plan_on_gpu0(std::optional<std::uint64_t> expected, std::uint64_t before = 30 * kGiB) {
    KillPlan plan;
    plan.targets.push_back(PlannedTarget{.identity = {200, 5200}, .name = "python3", .gpus = {0}});
    plan.gpu_memory_used_before[0] = before;
    plan.gpu_memory_expected_release[0] = expected;
    return plan;
}

Snapshot gpu0_using(std::optional<std::uint64_t> used) {
    Snapshot snapshot;
    Gpu gpu{.index = 0};
    gpu.reading.memory_used_bytes = used;
    snapshot.gpus.push_back(gpu);
    return snapshot;
}

void add_holder(Snapshot& snapshot, pid_t pid, std::uint64_t start_time) {
    SnapshotProcess process;
    process.info.pid = pid;
    process.info.start_time_ticks = start_time;
    process.gpus.push_back(ProcessGpuUse{.gpu_index = 0, .seen_by = {.device_file = true}});
    snapshot.processes.push_back(process);
}

const std::vector<pid_t> kTargets{200};

TEST(ReclaimVerify, ReleasedWhenTheExpectedMemoryCameBack) {
    const GpuRelease r =
        evaluate_release(0, plan_on_gpu0(28 * kGiB), kTargets, gpu0_using(2 * kGiB));
    EXPECT_TRUE(r.released);
    EXPECT_FALSE(r.soft_locked);
    EXPECT_EQ(r.memory_reclaimed_bytes, 28 * kGiB);
    EXPECT_EQ(r.memory_used_after, 2 * kGiB);
}

TEST(ReclaimVerify, SmallDriverSlackIsTolerated) {
    const auto r =
        evaluate_release(0, plan_on_gpu0(28 * kGiB), kTargets, gpu0_using(2 * kGiB + kMiB / 2));
    EXPECT_TRUE(r.released);
}

TEST(ReclaimVerify, PartialReleaseIsNotReleased) {
    Snapshot now = gpu0_using(12 * kGiB);
    add_holder(now, 999, 1);  // someone else still on the GPU: not soft-locked
    const auto r = evaluate_release(0, plan_on_gpu0(28 * kGiB), kTargets, now);
    EXPECT_FALSE(r.released);
    EXPECT_FALSE(r.soft_locked);
    EXPECT_EQ(r.memory_reclaimed_bytes, 18 * kGiB);
}

TEST(ReclaimVerify, TargetStillHoldingIsNotReleased) {
    Snapshot now = gpu0_using(2 * kGiB);
    add_holder(now, 200, 5200);
    const auto r = evaluate_release(0, plan_on_gpu0(28 * kGiB), kTargets, now);
    EXPECT_FALSE(r.released);
    EXPECT_EQ(r.targets_still_holding, std::vector<pid_t>{200});
}

TEST(ReclaimVerify, AReusedPidIsNotTheTarget) {
    Snapshot now = gpu0_using(2 * kGiB + 1 * kGiB);
    add_holder(now, 200, 9999);  // PID 200 again, a later process
    const auto r = evaluate_release(0, plan_on_gpu0(27 * kGiB), kTargets, now);
    EXPECT_TRUE(r.targets_still_holding.empty());
    EXPECT_TRUE(r.released);
}

TEST(ReclaimVerify, SoftLockedWhenNobodyHoldsTheGpuAndTheMemoryStays) {
    const auto r = evaluate_release(0, plan_on_gpu0(28 * kGiB), kTargets, gpu0_using(30 * kGiB));
    EXPECT_TRUE(r.soft_locked);
    EXPECT_FALSE(r.released);
}

TEST(ReclaimVerify, NotSoftLockedWhileAnotherProcessHoldsTheGpu) {
    Snapshot now = gpu0_using(30 * kGiB);
    add_holder(now, 777, 1);
    const auto r = evaluate_release(0, plan_on_gpu0(28 * kGiB), kTargets, now);
    EXPECT_FALSE(r.soft_locked);
    EXPECT_FALSE(r.released);
}

TEST(ReclaimVerify, UnknownExpectationReleasedWhenTheTargetsLetGo) {
    const auto r = evaluate_release(0, plan_on_gpu0(std::nullopt), kTargets, gpu0_using(10 * kGiB));
    EXPECT_TRUE(r.released);
    EXPECT_FALSE(r.soft_locked);
}

TEST(ReclaimVerify, UnknownExpectationSoftLockedWhenNothingCameBack) {
    const auto r = evaluate_release(0, plan_on_gpu0(std::nullopt), kTargets, gpu0_using(30 * kGiB));
    EXPECT_TRUE(r.soft_locked);
    EXPECT_FALSE(r.released);
}

TEST(ReclaimVerify, UnknownReadingsAreNeverSoftLocked) {
    const auto r = evaluate_release(0, plan_on_gpu0(28 * kGiB), kTargets, gpu0_using(std::nullopt));
    EXPECT_FALSE(r.soft_locked);
    EXPECT_TRUE(r.released);  // only "the targets let go" can be checked
    EXPECT_EQ(r.memory_reclaimed_bytes, std::nullopt);
}

TEST(ReclaimVerify, LoopStopsAsSoonAsEveryGpuIsReleased) {
    int samples = 0;
    auto sample = [&] {
        ++samples;
        return gpu0_using(samples < 3 ? 30 * kGiB : 2 * kGiB);
    };
    const auto start = std::chrono::steady_clock::now();
    const auto releases =
        verify_release(plan_on_gpu0(28 * kGiB), kTargets, sample,
                       VerifyOptions{.timeout_seconds = 10, .poll_interval_seconds = 0.01});
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(releases.size(), 1U);
    EXPECT_TRUE(releases[0].released);
    EXPECT_EQ(samples, 3);
    ASSERT_TRUE(releases[0].seconds_to_release);
    EXPECT_GE(*releases[0].seconds_to_release, 0.015);
    EXPECT_LT(elapsed, 5.0);
}

TEST(ReclaimVerify, LoopGivesUpAtTheTimeoutWithTheLastReading) {
    int samples = 0;
    auto sample = [&] {
        ++samples;
        return gpu0_using(30 * kGiB);
    };
    const auto releases =
        verify_release(plan_on_gpu0(28 * kGiB), kTargets, sample,
                       VerifyOptions{.timeout_seconds = 0.1, .poll_interval_seconds = 0.02});
    ASSERT_EQ(releases.size(), 1U);
    EXPECT_FALSE(releases[0].released);
    EXPECT_TRUE(releases[0].soft_locked);
    EXPECT_FALSE(releases[0].seconds_to_release);
    EXPECT_GE(samples, 3);
    EXPECT_LE(samples, 10);
}

TEST(ReclaimVerify, ACheapSampleCannotCallAGpuSoftLockedWithoutAFullLook) {
    // The cheap sample (drivers only) sees nobody; the full one sees a process
    // holding the device file: the memory is held, not stuck.
    auto cheap = [] { return gpu0_using(30 * kGiB); };
    int full_samples = 0;
    auto full = [&] {
        ++full_samples;
        Snapshot now = gpu0_using(30 * kGiB);
        add_holder(now, 777, 1);
        return now;
    };
    const auto releases =
        verify_release(plan_on_gpu0(28 * kGiB), kTargets, cheap,
                       VerifyOptions{.timeout_seconds = 0.05, .poll_interval_seconds = 0.01}, full);
    ASSERT_EQ(releases.size(), 1U);
    EXPECT_EQ(full_samples, 1);
    EXPECT_FALSE(releases[0].soft_locked);
    EXPECT_FALSE(releases[0].released);
}

TEST(ReclaimVerify, ZeroTimeoutStillSamplesOnce) {
    int samples = 0;
    auto sample = [&] {
        ++samples;
        return gpu0_using(2 * kGiB);
    };
    const auto releases = verify_release(plan_on_gpu0(28 * kGiB), kTargets, sample,
                                         VerifyOptions{.timeout_seconds = 0});
    EXPECT_EQ(samples, 1);
    EXPECT_TRUE(releases.at(0).released);
}

TEST(ReclaimVerify, NothingToVerifyWhenTheTargetsHeldNoGpu) {
    int samples = 0;
    auto sample = [&] {
        ++samples;
        return Snapshot{};
    };
    EXPECT_TRUE(verify_release(KillPlan{}, kTargets, sample, VerifyOptions{}).empty());
    EXPECT_EQ(samples, 0);
}

}  // namespace
}  // namespace gpukill::reclaim
