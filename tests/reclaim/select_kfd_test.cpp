// `kill --gpu N` and a process that only may be on GPU N (it holds /dev/kfd, and nothing
// says which AMD GPU it uses): never a target, always said in the plan.
#include <gtest/gtest.h>

#include <algorithm>

#include "fake_host.hpp"
#include "reclaim/select.hpp"

namespace gpukill::reclaim {
namespace {

using reclaim_test::FakeHost;
using reclaim_test::kGiB;
using reclaim_test::kShell;
using reclaim_test::test_safety;

// Two AMD GPUs: a trainer known on GPU 0, a ROCm process that may be on either.
FakeHost kfd_any_host() {
    FakeHost host(2, Vendor::amd);
    host.add(200, kShell, "train");
    host.holds(200, 0, 2 * kGiB);
    host.add(300, kShell, "rocm_any");
    host.may_hold(300, 0);
    host.may_hold(300, 1);
    return host;
}

KillPlan kfd_plan(const FakeHost& host, Selectors selectors) {
    selectors.batch = true;
    auto plan = build_kill_plan(host.snapshot(), host.table(), selectors, test_safety());
    EXPECT_TRUE(plan.has_value()) << plan.error().what;
    return plan.value_or(KillPlan{});
}

const Refusal* kfd_refusal_of(const KillPlan& plan, pid_t pid) {
    auto it = std::find_if(plan.refusals.begin(), plan.refusals.end(),
                           [&](const Refusal& r) { return r.pid == pid; });
    return it == plan.refusals.end() ? nullptr : &*it;
}

bool kfd_targets(const KillPlan& plan, pid_t pid) {
    return std::any_of(plan.targets.begin(), plan.targets.end(),
                       [&](const PlannedTarget& t) { return t.identity.pid == pid; });
}

TEST(ReclaimSelectKfd, GpuSelectorLeavesOutAProcessThatOnlyMayBeOnThatGpuAndSaysWhy) {
    for (unsigned gpu : {0u, 1u}) {
        Selectors s;
        s.gpu = gpu;
        KillPlan plan = kfd_plan(kfd_any_host(), s);
        EXPECT_FALSE(kfd_targets(plan, 300)) << "GPU " << gpu;
        EXPECT_EQ(kfd_targets(plan, 200), gpu == 0);
        const Refusal* refusal = kfd_refusal_of(plan, 300);
        ASSERT_NE(refusal, nullptr) << "GPU " << gpu;
        EXPECT_EQ(refusal->kind, RefusalKind::gpu_unknown);
        EXPECT_FALSE(refusal->explicitly_named);
        EXPECT_NE(refusal->why.find("/dev/kfd"), std::string::npos) << refusal->why;
        EXPECT_NE(refusal->why.find("--pid"), std::string::npos) << refusal->why;
        EXPECT_FALSE(plan.aborted());
    }
}

TEST(ReclaimSelectKfd, OtherSelectorsStillDecide) {
    Selectors s;
    s.gpu = 1;
    s.filter = "train";  // 300 does not match it anyway: nothing to say about it
    KillPlan plan = kfd_plan(kfd_any_host(), s);
    EXPECT_TRUE(plan.targets.empty());
    EXPECT_EQ(kfd_refusal_of(plan, 300), nullptr);
}

TEST(ReclaimSelectKfd, NamedWithGpuIsRefusedAsUnknownNamedAloneIsATarget) {
    Selectors s;
    s.pid_arguments = {"300"};
    s.gpu = 1;
    KillPlan plan = kfd_plan(kfd_any_host(), s);
    EXPECT_TRUE(plan.aborted());
    const Refusal* refusal = kfd_refusal_of(plan, 300);
    ASSERT_NE(refusal, nullptr);
    EXPECT_EQ(refusal->kind, RefusalKind::gpu_unknown);

    Selectors named;
    named.pid_arguments = {"300"};
    KillPlan alone = kfd_plan(kfd_any_host(), named);
    ASSERT_TRUE(kfd_targets(alone, 300));
    EXPECT_EQ(alone.targets.at(0).gpus, (std::vector<unsigned>{0, 1}));
}

TEST(ReclaimSelectKfd, AWorkerThatOnlyMayShareTheGpuDoesNotJoinItsParent) {
    FakeHost host = kfd_any_host();
    host.add(400, 200, "worker");
    host.may_hold(400, 0);
    host.may_hold(400, 1);
    Selectors s;
    s.pid_arguments = {"200"};
    KillPlan plan = kfd_plan(host, s);
    EXPECT_TRUE(kfd_targets(plan, 200));
    EXPECT_FALSE(kfd_targets(plan, 400));
    s.tree = true;  // asked for: the whole tree
    EXPECT_TRUE(kfd_targets(kfd_plan(host, s), 400));
}

}  // namespace
}  // namespace gpukill::reclaim
