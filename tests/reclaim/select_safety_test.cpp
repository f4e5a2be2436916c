// Every safety refusal, and what a refusal means for named and for matched processes.
#include <gtest/gtest.h>

#include "fake_host.hpp"
#include "reclaim/select.hpp"

namespace gpukill::reclaim {
namespace {

using reclaim_test::FakeHost;
using reclaim_test::kGiB;
using reclaim_test::named;
using reclaim_test::test_safety;

KillPlan plan_for(const FakeHost& host, const Selectors& selectors,
                  const SafetyContext& safety = test_safety()) {
    auto plan = build_kill_plan(host.snapshot(), host.table(), selectors, safety);
    EXPECT_TRUE(plan.has_value()) << plan.error().what;
    return plan.value_or(KillPlan{});
}

// The single refusal of a plan that names one PID.
Refusal only_refusal(const KillPlan& plan) {
    EXPECT_TRUE(plan.targets.empty());
    EXPECT_EQ(plan.refusals.size(), 1U);
    return plan.refusals.empty() ? Refusal{} : plan.refusals.front();
}

TEST(ReclaimSelectSafety, NamedHolderBecomesATargetWithItsGpus) {
    FakeHost host;
    host.add(4242, reclaim_test::kShell, "python3");
    host.holds(4242, 1, 8 * kGiB);
    const KillPlan plan = plan_for(host, named({"4242"}));
    ASSERT_EQ(plan.targets.size(), 1U);
    const PlannedTarget& t = plan.targets[0];
    EXPECT_EQ(t.identity, (ProcessIdentity{4242, 5000 + 4242}));
    EXPECT_EQ(t.reason, TargetReason::named_pid);
    EXPECT_EQ(t.name, "python3");
    EXPECT_EQ(t.user, "alice");
    EXPECT_EQ(t.gpus, std::vector<unsigned>{1});
    EXPECT_EQ(t.memory_bytes.at(1), 8 * kGiB);
    EXPECT_FALSE(plan.aborted());
    EXPECT_FALSE(plan.needs_batch_confirmation);
}

TEST(ReclaimSelectSafety, ANamedProcessHoldingNoGpuIsRefusedUnlessAnyProcess) {
    FakeHost host;
    host.add(4242, reclaim_test::kShell, "launcher");
    const KillPlan refused = plan_for(host, reclaim_test::named_holders({"4242"}));
    EXPECT_TRUE(refused.targets.empty());
    EXPECT_TRUE(refused.aborted());
    const Refusal r = only_refusal(refused);
    EXPECT_EQ(r.kind, RefusalKind::holds_no_gpu);
    EXPECT_TRUE(r.explicitly_named);
    EXPECT_NE(r.why.find("--any-process"), std::string::npos) << r.why;

    const KillPlan plan = plan_for(host, named({"4242"}));  // --any-process
    ASSERT_EQ(plan.targets.size(), 1U);
    EXPECT_TRUE(plan.targets[0].gpus.empty());
    EXPECT_TRUE(plan.gpu_memory_used_before.empty());
}

TEST(ReclaimSelectSafety, ALauncherWhoseChildHoldsAGpuMayBeNamed) {
    FakeHost host;
    host.add(4242, reclaim_test::kShell, "launcher");
    host.add(4250, 4242, "python");
    host.holds(4250, 0, reclaim_test::kGiB);
    const KillPlan plan = plan_for(host, reclaim_test::named_holders({"4242"}));
    EXPECT_FALSE(plan.aborted());
    ASSERT_FALSE(plan.targets.empty());
    EXPECT_EQ(plan.targets[0].identity.pid, 4242);
}

TEST(ReclaimSelectSafety, InvalidArgumentIsANamedRefusal) {
    FakeHost host;
    const Refusal r = only_refusal(plan_for(host, named({"-1"})));
    EXPECT_EQ(r.kind, RefusalKind::invalid_pid);
    EXPECT_EQ(r.argument, "-1");
    EXPECT_TRUE(r.explicitly_named);
    EXPECT_NE(r.why.find("every process"), std::string::npos);
}

TEST(ReclaimSelectSafety, MissingProcessIsNotFound) {
    FakeHost host;
    const KillPlan plan = plan_for(host, named({"777"}));
    const Refusal r = only_refusal(plan);
    EXPECT_EQ(r.kind, RefusalKind::not_found);
    EXPECT_EQ(r.pid, 777);
    EXPECT_TRUE(plan.aborted());
}

TEST(ReclaimSelectSafety, InitIsRefused) {
    FakeHost host;
    EXPECT_EQ(only_refusal(plan_for(host, named({"1"}))).kind, RefusalKind::init);
}

TEST(ReclaimSelectSafety, SelfAndAncestorsAreRefused) {
    FakeHost host;
    EXPECT_EQ(only_refusal(plan_for(host, named({"100"}))).kind, RefusalKind::self_or_ancestor);
    EXPECT_EQ(only_refusal(plan_for(host, named({"90"}))).kind, RefusalKind::self_or_ancestor);
}

TEST(ReclaimSelectSafety, KernelThreadIsRefused) {
    FakeHost host;
    host.add(2, 0, "kthreadd", 0, "root").kernel_thread = true;
    EXPECT_EQ(only_refusal(plan_for(host, named({"2"}))).kind, RefusalKind::kernel_thread);
}

// The identity of `pid` in `host`, as find_system_programs gives it for a process whose
// files are all root's.
std::pair<pid_t, std::uint64_t> system_program(FakeHost& host, pid_t pid) {
    return {pid, host.info(pid).start_time_ticks};
}

TEST(ReclaimSelectSafety, ProtectedByProgramUserOrPid) {
    FakeHost host;
    host.add(500, 1, "Xorg");
    ProcessInfo& renamed = host.add(501, 1, "X-renamed");
    renamed.exe = "/usr/bin/nv-hostengine";
    host.add(502, 1, "nvidia-persiste").exe = "/usr/bin/nvidia-persistenced";
    host.add(503, 1, "worker", 1000, "svc-monitor");
    host.add(504, 1, "worker");
    host.add(505, 1, "tritonserver").exe = "/opt/tritonserver/bin/tritonserver";
    SafetyContext safety = test_safety();
    safety.protected_list.users.insert("svc-monitor");
    safety.protected_list.pids.insert(504);
    safety.protected_list.executable_paths.insert("/opt/tritonserver/bin/tritonserver");
    for (pid_t pid : {500, 501, 502, 505}) safety.system_programs.insert(system_program(host, pid));
    for (const char* pid : {"500", "501", "502", "503", "504", "505"}) {
        EXPECT_EQ(only_refusal(plan_for(host, named({pid}), safety)).kind,
                  RefusalKind::protected_process)
            << pid;
    }
}

// A program protects only a process that runs it as a system program: the same names and
// paths, run from files a user could have placed, are plain processes (issue 29, item 11).
TEST(ReclaimSelectSafety, AProtectedProgramFromAUsersFileIsNotProtected) {
    FakeHost host;
    host.add(500, 1, "Xorg");                                       // /usr/bin/Xorg, unproven
    host.add(501, 1, "Xorg").exe = "/tmp/job/gpusim";               // only comm says Xorg
    host.add(502, 1, "gpusim").exe = "/usr/bin/Xorg";               // unproven, named by path
    host.add(503, 1, "worker").exe = "/usr/lib/xorg/Xorg-wrapper";  // a different file name
    SafetyContext safety = test_safety();
    safety.protected_list.executable_paths.insert("/usr/bin/Xorg");
    // 501 and 503 run system programs, but not ones the list names.
    for (pid_t pid : {501, 503}) safety.system_programs.insert(system_program(host, pid));
    EXPECT_EQ(plan_for(host, named({"500", "501", "502", "503"}), safety).targets.size(), 4U);
    EXPECT_TRUE(plan_for(host, named({"500", "501", "502", "503"}), safety).refusals.empty());

    // A system program seen as another process (the PID reused since) is not this one.
    SafetyContext stale = test_safety();
    stale.system_programs.insert({500, host.info(500).start_time_ticks + 1});
    EXPECT_TRUE(plan_for(host, named({"500"}), stale).refusals.empty());
}

// An entry with an owner protects the program only for that account.
TEST(ReclaimSelectSafety, AnOwnedProgramIsProtectedOnlyForItsAccount) {
    FakeHost host;
    host.add(600, 1, "nv-hostengine", 0, "root");
    host.add(601, reclaim_test::kShell, "nv-hostengine");  // alice runs the same binary
    SafetyContext safety = test_safety();
    safety.can_signal_any_user = true;
    safety.protected_list = {};
    safety.protected_list.owned_programs["nv-hostengine"] = {"root"};
    for (pid_t pid : {600, 601}) safety.system_programs.insert(system_program(host, pid));
    EXPECT_EQ(only_refusal(plan_for(host, named({"600"}), safety)).kind,
              RefusalKind::protected_process);
    const KillPlan alices = plan_for(host, named({"601"}), safety);
    EXPECT_TRUE(alices.refusals.empty());
    EXPECT_EQ(alices.targets.size(), 1U);
}

TEST(ReclaimSelectSafety, ProtectedNamesMatchExactlyNotBySubstring) {
    FakeHost host;
    host.add(510, reclaim_test::kShell, "Xorgish");
    host.add(511, reclaim_test::kShell, "my-nvidia-smi-wrapper");
    EXPECT_EQ(plan_for(host, named({"510", "511"})).targets.size(), 2U);
}

TEST(ReclaimSelectSafety, AnotherUsersProcessNeedsPrivilege) {
    FakeHost host;
    host.add(600, 1, "python3", 2000, "bob");
    const Refusal r = only_refusal(plan_for(host, named({"600"})));
    EXPECT_EQ(r.kind, RefusalKind::permission);
    EXPECT_EQ(r.why, "owned by bob; run as root or as bob");

    SafetyContext root = test_safety();
    root.can_signal_any_user = true;
    EXPECT_EQ(plan_for(host, named({"600"}), root).targets.size(), 1U);
}

TEST(ReclaimSelectSafety, ReusedPidIsAStaleIdentity) {
    FakeHost host;
    host.add(700, reclaim_test::kShell, "python3");
    host.holds(700, 0, kGiB);
    Snapshot snapshot = host.snapshot();
    snapshot.processes[0].info.start_time_ticks -= 50;  // the holder seen was an earlier 700
    auto plan = build_kill_plan(snapshot, host.table(), named({"700"}), test_safety());
    ASSERT_TRUE(plan);
    ASSERT_EQ(plan->refusals.size(), 1U);
    EXPECT_EQ(plan->refusals[0].kind, RefusalKind::stale_identity);
    EXPECT_TRUE(plan->aborted());
}

TEST(ReclaimSelectSafety, OneNamedRefusalAbortsTheWholePlan) {
    FakeHost host;
    host.add(4242, reclaim_test::kShell, "python3");
    const KillPlan plan = plan_for(host, named({"4242", "1"}));
    EXPECT_EQ(plan.targets.size(), 1U);  // listed, so the user sees what would have gone
    EXPECT_TRUE(plan.aborted());
}

TEST(ReclaimSelectSafety, MatchedRefusalsAreSkippedNotFatal) {
    FakeHost host;
    host.add(500, 1, "Xorg");
    host.holds(500, 0, 200 << 20);
    host.add(4242, reclaim_test::kShell, "python3");
    host.holds(4242, 0, 8 * kGiB);
    host.add(600, reclaim_test::kShell, "python3", 2000, "bob");
    host.holds(600, 0, kGiB);
    Selectors selectors;
    selectors.gpu = 0;
    selectors.batch = true;
    SafetyContext safety = test_safety();
    safety.system_programs.insert(system_program(host, 500));
    const KillPlan plan = plan_for(host, selectors, safety);
    ASSERT_EQ(plan.targets.size(), 1U);
    EXPECT_EQ(plan.targets[0].identity.pid, 4242);
    EXPECT_EQ(plan.targets[0].reason, TargetReason::selector_match);
    ASSERT_EQ(plan.refusals.size(), 2U);
    for (const Refusal& r : plan.refusals) EXPECT_FALSE(r.explicitly_named);
    EXPECT_FALSE(plan.aborted());
}

TEST(ReclaimSelectSafety, DriverListedPidMissingFromProcIsReportedNotSignalled) {
    FakeHost host;
    host.holds(9999, 0, kGiB);  // in the driver's list, in no process table
    Selectors selectors;
    selectors.gpu = 0;
    const KillPlan plan = plan_for(host, selectors);
    EXPECT_TRUE(plan.targets.empty());
    ASSERT_EQ(plan.refusals.size(), 1U);
    EXPECT_EQ(plan.refusals[0].kind, RefusalKind::not_found);
    EXPECT_FALSE(plan.refusals[0].explicitly_named);
}

TEST(ReclaimSelectSafety, RepeatedPidsAreOneTargetAndTargetsAreSorted) {
    FakeHost host;
    host.add(300, reclaim_test::kShell, "a");
    host.add(200, reclaim_test::kShell, "b");
    const KillPlan plan = plan_for(host, named({"300", "200", "0300", "300"}));
    ASSERT_EQ(plan.targets.size(), 2U);
    EXPECT_EQ(plan.targets[0].identity.pid, 200);
    EXPECT_EQ(plan.targets[1].identity.pid, 300);
    EXPECT_TRUE(plan.refusals.empty());
}

}  // namespace
}  // namespace gpukill::reclaim
