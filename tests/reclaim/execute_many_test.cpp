// Many targets at once: one poll() over every pidfd, so the wait is one timeout, not one
// per target.
#include <gtest/gtest.h>

#include <chrono>

#include "child_processes.hpp"
#include "reclaim/execute.hpp"

namespace gpukill::reclaim {
namespace {

using reclaim_test::Behaviour;
using reclaim_test::Children;

TEST(ReclaimExecuteMany, TwoHundredTargetsFinishInOneTimeout) {
    constexpr int kTargets = 200;
    constexpr int kStubborn = 50;  // every fourth child ignores SIGTERM
    Children children;
    KillPlan plan;
    std::vector<pid_t> pids;
    for (int i = 0; i < kTargets; ++i) {
        const bool stubborn = i % (kTargets / kStubborn) == 0;
        const pid_t pid =
            children.start(stubborn ? Behaviour::ignores_term : Behaviour::cooperative);
        pids.push_back(pid);
        plan.targets.push_back(PlannedTarget{.identity = Children::identity(pid)});
    }
    const ExecuteOptions options{.timeout_seconds = 1, .force = true, .kill_timeout_seconds = 5};
    const ExecuteResult result = execute_plan(plan, HostRoots{}, options);

    int terminated = 0;
    int killed = 0;
    for (const TargetResult& t : result.targets) {
        terminated += t.outcome == Outcome::terminated;
        killed += t.outcome == Outcome::killed;
    }
    EXPECT_EQ(terminated, kTargets - kStubborn);
    EXPECT_EQ(killed, kStubborn);
    EXPECT_GE(result.seconds, 1.0);  // the stubborn ones were given their full timeout
    EXPECT_LT(result.seconds, 3.0) << "waited per target instead of all at once";
    RecordProperty("seconds", std::to_string(result.seconds));
    for (pid_t pid : pids) children.reap(pid);
}

TEST(ReclaimExecuteMany, CooperativeTargetsDoNotWaitForTheTimeout) {
    Children children;
    KillPlan plan;
    std::vector<pid_t> pids;
    for (int i = 0; i < 100; ++i) {
        pids.push_back(children.start(Behaviour::cooperative));
        plan.targets.push_back(PlannedTarget{.identity = Children::identity(pids.back())});
    }
    const ExecuteResult result =
        execute_plan(plan, HostRoots{}, ExecuteOptions{.timeout_seconds = 30});
    for (const TargetResult& t : result.targets) EXPECT_EQ(t.outcome, Outcome::terminated);
    EXPECT_LT(result.seconds, 3.0);
    for (pid_t pid : pids) children.reap(pid);
}

}  // namespace
}  // namespace gpukill::reclaim
