// Growing the plan to the workers that keep a target's GPUs held, --tree and --group,
// and the memory verification will expect back.
#include <gtest/gtest.h>

#include <algorithm>

#include "fake_host.hpp"
#include "reclaim/select.hpp"

namespace gpukill::reclaim {
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

const PlannedTarget* find(const KillPlan& plan, pid_t pid) {
    for (const PlannedTarget& t : plan.targets) {
        if (t.identity.pid == pid) return &t;
    }
    return nullptr;
}

// A trainer (200) on GPU 0, a shell under it (201, no GPU), a DataLoader worker under the
// shell (202, GPU 0 by device file), a process under the trainer on GPU 1 only (203), and
// a plain helper (204).
FakeHost trainer_family() {
    FakeHost host;
    host.add(200, kShell, "python3");
    host.holds(200, 0, 20 * kGiB);
    host.add(201, 200, "sh");
    host.add(202, 201, "pt_data_worker");
    host.holds(202, 0, std::nullopt, false);
    host.add(203, 200, "python3");
    host.holds(203, 1, 2 * kGiB);
    host.add(204, 200, "tee");
    return host;
}

TEST(ReclaimSelectExpand, DescendantHoldingTheSameGpuIsAddedThroughANonHolder) {
    const KillPlan plan = plan_for(trainer_family(), named({"200"}));
    ASSERT_EQ(plan.targets.size(), 2U);
    const PlannedTarget* worker = find(plan, 202);
    ASSERT_NE(worker, nullptr);
    EXPECT_EQ(worker->reason, TargetReason::holds_same_gpu);
    EXPECT_EQ(worker->reason_detail, "descendant of 200 holding GPU 0");
    EXPECT_EQ(find(plan, 203), nullptr);  // another GPU: not the trainer's memory
    EXPECT_EQ(find(plan, 201), nullptr);
}

TEST(ReclaimSelectExpand, TreeAddsEveryDescendant) {
    Selectors s = named({"200"});
    s.tree = true;
    const KillPlan plan = plan_for(trainer_family(), s);
    ASSERT_EQ(plan.targets.size(), 5U);
    EXPECT_EQ(find(plan, 202)->reason, TargetReason::holds_same_gpu);
    EXPECT_EQ(find(plan, 201)->reason, TargetReason::tree_member);
    EXPECT_EQ(find(plan, 203)->reason, TargetReason::tree_member);
    EXPECT_EQ(find(plan, 204)->reason_detail, "descendant of 200 (--tree)");
}

TEST(ReclaimSelectExpand, GroupAddsTheTargetsProcessGroup) {
    FakeHost host = trainer_family();
    host.add(500, kShell, "logger").pgid = 200;  // same job, not a descendant
    host.add(501, kShell, "other");
    Selectors s = named({"200"});
    s.group = true;
    const KillPlan plan = plan_for(host, s);
    const PlannedTarget* member = find(plan, 500);
    ASSERT_NE(member, nullptr);
    EXPECT_EQ(member->reason, TargetReason::group_member);
    EXPECT_EQ(member->reason_detail, "in process group 200 of 200 (--group)");
    EXPECT_EQ(find(plan, 501), nullptr);
}

TEST(ReclaimSelectExpand, GroupNeverReachesGpukillsOwnGroup) {
    FakeHost host;
    host.add(200, kShell, "python3").pgid = reclaim_test::kSelf;  // in gpukill's pipeline
    host.add(201, kShell, "tee").pgid = reclaim_test::kSelf;
    Selectors s = named({"200"});
    s.group = true;
    const KillPlan plan = plan_for(host, s);
    ASSERT_EQ(plan.targets.size(), 1U);
    EXPECT_EQ(plan.targets[0].identity.pid, 200);
}

TEST(ReclaimSelectExpand, AddedProcessesPassTheSafetyRulesAndDoNotAbort) {
    FakeHost host = trainer_family();
    host.add(205, 200, "python3", 2000, "bob");  // setuid helper owned by someone else
    host.holds(205, 0, kGiB);
    const KillPlan plan = plan_for(host, named({"200"}));
    EXPECT_EQ(find(plan, 205), nullptr);
    ASSERT_EQ(plan.refusals.size(), 1U);
    EXPECT_EQ(plan.refusals[0].kind, RefusalKind::permission);
    EXPECT_FALSE(plan.refusals[0].explicitly_named);
    EXPECT_FALSE(plan.aborted());
}

TEST(ReclaimSelectExpand, ARefusedTargetGrowsNothing) {
    FakeHost host;
    host.add(200, kShell, "python3", 2000, "bob");
    host.holds(200, 0, kGiB);
    host.add(201, 200, "worker");
    host.holds(201, 0, kGiB);
    const KillPlan plan = plan_for(host, named({"200"}));
    EXPECT_TRUE(plan.targets.empty());
}

TEST(ReclaimSelectExpand, ExpectedReleaseIsTheTargetsDriverMemory) {
    FakeHost host = trainer_family();
    host.add(300, kShell, "other");
    host.holds(300, 0, 5 * kGiB);
    Selectors s = named({"203"});
    const KillPlan plan = plan_for(host, s);
    EXPECT_EQ(plan.gpu_memory_used_before.at(1), 2 * kGiB);
    EXPECT_EQ(plan.gpu_memory_expected_release.at(1), 2 * kGiB);
    EXPECT_FALSE(plan.gpu_memory_used_before.contains(0));
}

TEST(ReclaimSelectExpand, DeviceFileOnlyTargetsBringBackTheUnattributedMemory) {
    FakeHost host = trainer_family();
    host.add_unattributed(0, 6 * kGiB);  // the worker's share, invisible to the driver list
    const KillPlan plan = plan_for(host, named({"200"}));
    EXPECT_EQ(plan.gpu_memory_used_before.at(0), 26 * kGiB);
    EXPECT_EQ(plan.gpu_memory_expected_release.at(0), 26 * kGiB);
}

TEST(ReclaimSelectExpand, ExpectedReleaseUnknownWhenAnotherUnlistedHolderStays) {
    FakeHost host = trainer_family();
    host.add(600, kShell, "stranger");  // not ours, also unlisted on GPU 0
    host.holds(600, 0, std::nullopt, false);
    host.add_unattributed(0, 6 * kGiB);
    const KillPlan plan = plan_for(host, named({"200"}));
    EXPECT_EQ(plan.gpu_memory_expected_release.at(0), std::nullopt);
}

TEST(ReclaimSelectExpand, ExpectedReleaseUnknownWhenTheDriverGivesNoFigure) {
    FakeHost host;
    host.add(200, kShell, "python3");
    host.holds(200, 0, std::nullopt, true);  // listed, memory "not available"
    const KillPlan plan = plan_for(host, named({"200"}));
    EXPECT_EQ(plan.gpu_memory_expected_release.at(0), std::nullopt);
}

}  // namespace
}  // namespace gpukill::reclaim

namespace gpukill::reclaim {
namespace {

// Whatever adds a process to the plan (a worker holding the target's GPU, --tree,
// --group), the protected list is checked on it: protection is decided on the final set.
TEST(ReclaimSelectExpand, ProtectedWorkersAreRefusedHoweverTheyWereAdded) {
    for (int way = 0; way < 3; ++way) {
        FakeHost host = trainer_family();
        host.info(202).user = "svc";
        SafetyContext safety = reclaim_test::test_safety();
        if (way == 0) safety.protected_list.pids.insert(202);
        if (way == 1) safety.protected_list.users.insert("svc");
        if (way == 2) safety.protected_list.executable_paths.insert("/usr/bin/pt_data_worker");
        safety.system_programs.insert({202, host.info(202).start_time_ticks});
        Selectors s = named({"200"});
        s.tree = true;
        auto plan = build_kill_plan(host.snapshot(), host.table(), s, safety);
        ASSERT_TRUE(plan) << plan.error().what;
        EXPECT_EQ(find(*plan, 202), nullptr) << "way " << way;
        ASSERT_NE(find(*plan, 200), nullptr);
        const auto refused = std::find_if(plan->refusals.begin(), plan->refusals.end(),
                                          [](const Refusal& r) { return r.pid == 202; });
        ASSERT_NE(refused, plan->refusals.end()) << "way " << way;
        EXPECT_EQ(refused->kind, RefusalKind::protected_process);
        EXPECT_FALSE(plan->aborted());  // the named parent is still ended
    }
}

}  // namespace
}  // namespace gpukill::reclaim
