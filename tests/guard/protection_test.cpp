#include "guard/protection.hpp"

#include <gtest/gtest.h>

#include "reclaim/safety_check.hpp"

namespace gpukill::guard {
namespace {

TEST(GuardProtection, ThePolicysProtectedSectionJoinsGpukillsList) {
    Policy policy;
    policy.protected_processes.pids = {4242};
    policy.protected_processes.users = {"nobody"};
    policy.protected_processes.executables = {"/opt/serve/bin/server", "tritonserver"};
    reclaim::ProtectedList base;
    base.names = {"Xorg"};
    const reclaim::ProtectedList joined = protection_for_actions(policy, base);

    ProcessInfo worker;
    worker.pid = 4242;
    worker.start_time_ticks = 9;
    worker.comm = "python";
    // The worker runs root's files (find_system_programs said so).
    const reclaim::SystemPrograms system = {{4243, 9}};
    EXPECT_TRUE(reclaim::is_protected(worker, joined, {}));
    worker.pid = 4243;
    EXPECT_FALSE(reclaim::is_protected(worker, joined, system));
    worker.user = "nobody";
    EXPECT_TRUE(reclaim::is_protected(worker, joined, {}));
    worker.user = "alice";
    worker.exe = "/opt/serve/bin/server";
    EXPECT_TRUE(reclaim::is_protected(worker, joined, system));
    EXPECT_FALSE(reclaim::is_protected(worker, joined, {})) << "a program needs root's files";
    worker.exe = "/opt/other/bin/server";  // a path entry is the exact path, not the name
    EXPECT_FALSE(reclaim::is_protected(worker, joined, system));
    worker.comm = "tritonserver";  // comm is the process's to set: never read
    EXPECT_FALSE(reclaim::is_protected(worker, joined, system));
    worker.exe = "/opt/triton/bin/tritonserver";
    EXPECT_TRUE(reclaim::is_protected(worker, joined, system));
    worker.exe = "/usr/lib/xorg/Xorg";
    EXPECT_TRUE(reclaim::is_protected(worker, joined, system));
    EXPECT_FALSE(reclaim::is_protected(worker, joined, {}));
}

}  // namespace
}  // namespace gpukill::guard
