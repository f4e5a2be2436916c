#include <gtest/gtest.h>

#include "model/snapshot.hpp"

namespace gpukill {
namespace {

ProcessInfo process(pid_t pid, pid_t ppid, pid_t pgid, pid_t sid) {
    return ProcessInfo{.pid = pid, .ppid = ppid, .pgid = pgid, .sid = sid};
}

TEST(Orphan, AWorkerReparentedToInitIsOrphaned) {
    EXPECT_TRUE(looks_orphaned(process(201, 1, 200, 150)));
}

TEST(Orphan, DaemonsServicesAndChildrenOfLivingParentsAreNot) {
    EXPECT_FALSE(looks_orphaned(process(300, 1, 300, 300)));  // systemd service: session leader
    EXPECT_FALSE(looks_orphaned(process(302, 99, 99, 99)));   // its parent lives
    ProcessInfo kthread = process(2, 0, 0, 0);
    kthread.kernel_thread = true;
    EXPECT_FALSE(looks_orphaned(kthread));
}

}  // namespace
}  // namespace gpukill
