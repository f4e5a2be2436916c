// Verifying a release on a DRM GPU, whose used memory includes the kernel's and the
// firmware's own allocations: without a per-process figure the bytes cannot be judged.
#include <gtest/gtest.h>

#include "fake_host.hpp"
#include "reclaim/verify.hpp"

namespace gpukill::reclaim {
namespace {

using reclaim_test::kGiB;

KillPlan plan_on_gpu0(std::optional<std::uint64_t> expected) {
    KillPlan plan;
    plan.targets.push_back(PlannedTarget{.identity = {200, 5200}, .name = "rocm", .gpus = {0}});
    plan.gpu_memory_used_before[0] = 3 * kGiB;
    plan.gpu_memory_expected_release[0] = expected;
    return plan;
}

Snapshot drm_gpu0_using(std::uint64_t used) {
    Snapshot snapshot;
    Gpu gpu{.index = 0};
    gpu.reading.backend = "drm";
    gpu.reading.memory_used_bytes = used;
    gpu.reading.process_list_accounts_memory = false;
    snapshot.gpus.push_back(gpu);
    return snapshot;
}

TEST(ReclaimVerifyDrm, UnknownExpectationIsReleasedWhenTheTargetsLetGo) {
    // The firmware's 3 GiB stay used: that is not a soft lock.
    const auto r = evaluate_release(0, plan_on_gpu0(std::nullopt), {200}, drm_gpu0_using(3 * kGiB));
    EXPECT_TRUE(r.released);
    EXPECT_FALSE(r.soft_locked);
    EXPECT_EQ(r.memory_reclaimed_bytes, 0u);
}

TEST(ReclaimVerifyDrm, AKnownClientFigureIsStillChecked) {
    // fdinfo said the target had 2 GiB resident: used memory must fall by that much.
    const auto stuck = evaluate_release(0, plan_on_gpu0(2 * kGiB), {200}, drm_gpu0_using(3 * kGiB));
    EXPECT_FALSE(stuck.released);
    EXPECT_TRUE(stuck.soft_locked);
    const auto freed = evaluate_release(0, plan_on_gpu0(2 * kGiB), {200}, drm_gpu0_using(1 * kGiB));
    EXPECT_TRUE(freed.released);
}

}  // namespace
}  // namespace gpukill::reclaim
