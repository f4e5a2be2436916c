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
    worker.comm = "python";
    EXPECT_TRUE(reclaim::is_protected(worker, joined));
    worker.pid = 4243;
    EXPECT_FALSE(reclaim::is_protected(worker, joined));
    worker.user = "nobody";
    EXPECT_TRUE(reclaim::is_protected(worker, joined));
    worker.user = "alice";
    worker.exe = "/opt/serve/bin/server";
    EXPECT_TRUE(reclaim::is_protected(worker, joined));
    worker.exe = "/opt/other/bin/server";  // a path entry is the exact path, not the name
    EXPECT_FALSE(reclaim::is_protected(worker, joined));
    worker.comm = "tritonserver";
    EXPECT_TRUE(reclaim::is_protected(worker, joined));
    worker.comm = "Xorg";
    EXPECT_TRUE(reclaim::is_protected(worker, joined));
}

}  // namespace
}  // namespace gpukill::guard
