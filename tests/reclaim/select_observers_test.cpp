// Observers (monitoring clients: the NVML device files, no context) are never a target
// of a selector nor a trainer's worker, never hide a kill's memory, and never make a
// soft-locked GPU look held. A named PID still reaches one.
#include <gtest/gtest.h>

#include "fake_host.hpp"
#include "reclaim/select.hpp"
#include "reclaim/verify.hpp"

namespace gpukill::reclaim {
namespace select_observers_test {
namespace {

using reclaim_test::FakeHost;
using reclaim_test::kGiB;
using reclaim_test::kShell;
using reclaim_test::named;
using reclaim_test::test_safety;

KillPlan plan_for(const FakeHost& host, const Selectors& selectors) {
    auto plan = build_kill_plan(host.snapshot(), host.table(), selectors, test_safety());
    EXPECT_TRUE(plan.has_value()) << plan.error().what;
    return plan.value_or(KillPlan{});
}

bool targets(const KillPlan& plan, pid_t pid) {
    for (const PlannedTarget& target : plan.targets) {
        if (target.identity.pid == pid) return true;
    }
    return false;
}

// GPU 0: a trainer (200) of alice's with a monitoring child (201, an observer), and a
// monitor of alice's (300, orphaned: re-parented to init, not a session leader). Their
// names are on no protected list: nothing but their role keeps them out of a plan.
FakeHost monitored() {
    FakeHost host;
    host.add(200, kShell, "python3");
    host.holds(200, 0, 20 * kGiB);
    host.add(201, 200, "gpu-watch");
    host.observes(201, 0);
    host.add(300, 1, "my-exporter");
    host.observes(300, 0);
    return host;
}

TEST(ReclaimSelectObservers, NoSelectorMakesAnObserverATarget) {
    const FakeHost host = monitored();
    Selectors by_gpu;
    by_gpu.gpu = 0;
    by_gpu.batch = true;
    Selectors by_user;
    by_user.user = "alice";
    by_user.batch = true;
    Selectors unlisted;
    unlisted.unlisted = true;
    unlisted.batch = true;
    Selectors orphaned;
    orphaned.orphaned = true;
    orphaned.batch = true;
    for (const Selectors& selectors : {by_gpu, by_user, unlisted, orphaned}) {
        const KillPlan plan = plan_for(host, selectors);
        EXPECT_FALSE(targets(plan, 201));
        EXPECT_FALSE(targets(plan, 300));
        EXPECT_TRUE(plan.refusals.empty());  // passed over, as a process holding nothing
    }
    EXPECT_TRUE(targets(plan_for(host, by_gpu), 200));
}

TEST(ReclaimSelectObservers, AnObserverChildIsNoWorkerButTreeStillTakesIt) {
    const FakeHost host = monitored();
    EXPECT_FALSE(targets(plan_for(host, named({"200"})), 201));
    Selectors tree = named({"200"});
    tree.tree = true;
    EXPECT_TRUE(targets(plan_for(host, tree), 201));
}

TEST(ReclaimSelectObservers, ANamedObserverIsATarget) {
    EXPECT_TRUE(targets(plan_for(monitored(), named({"300"})), 300));
}

TEST(ReclaimSelectObservers, ObserversHideNoneOfTheMemoryAKillGivesBack) {
    FakeHost host = monitored();
    host.add(202, 200, "pt_data_worker");
    host.holds(202, 0, std::nullopt, false);
    host.add_unattributed(0, 6 * kGiB);  // the worker's share
    const KillPlan plan = plan_for(host, named({"200"}));
    EXPECT_EQ(plan.gpu_memory_expected_release.at(0), 26 * kGiB);
}

TEST(ReclaimSelectObservers, AGpuOnlyObserversHoldIsSoftLockedWhenItsMemoryStays) {
    FakeHost host;
    host.add(300, 1, "nv-hostengine");
    host.observes(300, 0);
    host.add_unattributed(0, 30 * kGiB);
    KillPlan plan;
    plan.targets.push_back(PlannedTarget{.identity = {200, 5200}, .name = "python3", .gpus = {0}});
    plan.gpu_memory_used_before[0] = 30 * kGiB;
    plan.gpu_memory_expected_release[0] = 28 * kGiB;
    const GpuRelease release = evaluate_release(0, plan, {200}, host.snapshot());
    EXPECT_TRUE(release.soft_locked);
    EXPECT_FALSE(release.released);
}

}  // namespace
}  // namespace select_observers_test
}  // namespace gpukill::reclaim
