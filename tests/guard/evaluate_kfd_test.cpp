// Rules about which GPU a process is on act only on known ties: a ROCm process that only may
// be on a GPU (it holds /dev/kfd, nothing says which AMD GPU) breaks no per-GPU rule there.
#include <gtest/gtest.h>

#include "guard_test_support.hpp"

namespace gpukill::guard::test {
namespace {

// alice's trainer known on GPU 0; her ROCm process 300 may be on GPU 0 or 1.
Snapshot kfd_any_snapshot() {
    Snapshot snapshot = SnapshotBuilder(kMonday)
                            .process({.pid = 200, .user = "alice", .memory = {{0, GiB}}})
                            .process({.pid = 300, .user = "alice", .comm = "rocm_any"})
                            .build();
    for (SnapshotProcess& process : snapshot.processes) {
        if (process.info.pid != 300) continue;
        for (unsigned gpu : {0u, 1u}) {
            ProcessGpuUse use{.gpu_index = gpu, .attribution = GpuAttribution::any_amd_gpu};
            use.seen_by.device_file = true;
            process.gpus.push_back(use);
        }
    }
    return snapshot;
}

TEST(GuardKfd, AUserRuleIgnoresATieThatIsOnlyPossible) {
    World world;
    const Policy allowed = policy_from("users:\n  alice: {allowed_gpus: [0]}\n");
    EXPECT_EQ(find(world.step(allowed, kfd_any_snapshot(), clock_at(kMonday)), 300,
                   "users.alice.allowed_gpus"),
              nullptr);
    const Policy blocked = policy_from("users:\n  alice: {blocked_gpus: [1]}\n");
    EXPECT_TRUE(world.step(blocked, kfd_any_snapshot(), clock_at(kMonday)).empty());
}

TEST(GuardKfd, AGpuRuleIgnoresATieThatIsOnlyPossible) {
    World world;
    const Policy policy = policy_from("gpus:\n  1: {allowed_users: [bob]}\n");
    EXPECT_TRUE(world.step(policy, kfd_any_snapshot(), clock_at(kMonday)).empty());
}

}  // namespace
}  // namespace gpukill::guard::test
