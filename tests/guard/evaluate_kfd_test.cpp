// Rules about which GPU a process is on act only on known ties: a ROCm process that only may
// be on a GPU (it holds /dev/kfd, nothing says which AMD GPU) breaks no per-GPU rule there.
#include <gtest/gtest.h>

#include "guard_test_support.hpp"

namespace gpukill::guard::test {
namespace {

// alice's trainer known on GPU 0; her ROCm process 300 on GPU 0 or 1, as `attribution`
// says: only possible there (any_amd_gpu), or known (this_gpu, its own render node).
Snapshot kfd_snapshot(GpuAttribution attribution) {
    Snapshot snapshot = SnapshotBuilder(kMonday)
                            .process({.pid = 200, .user = "alice", .memory = {{0, GiB}}})
                            .process({.pid = 300, .user = "alice", .comm = "rocm_any"})
                            .build();
    for (SnapshotProcess& process : snapshot.processes) {
        if (process.info.pid != 300) continue;
        for (unsigned gpu : {0u, 1u}) {
            ProcessGpuUse use{.gpu_index = gpu, .attribution = attribution};
            use.seen_by.device_file = true;
            process.gpus.push_back(use);
        }
    }
    return snapshot;
}

Snapshot kfd_any_snapshot() {
    return kfd_snapshot(GpuAttribution::any_amd_gpu);
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

// The same rules on the same process once its GPU 1 is known: each fires, so the two
// tests above pass because the tie is only possible, not because the rules never fire.
TEST(GuardKfd, TheSameRulesFireOnATieThatIsKnown) {
    const Snapshot known = kfd_snapshot(GpuAttribution::this_gpu);
    for (const auto& [yaml, rule] :
         {std::pair{"users:\n  alice: {allowed_gpus: [0]}\n", "users.alice.allowed_gpus"},
          std::pair{"users:\n  alice: {blocked_gpus: [1]}\n", "users.alice.blocked_gpus"},
          std::pair{"gpus:\n  1: {allowed_users: [bob]}\n", "gpus.1.allowed_users"}}) {
        World world;
        const auto decisions = world.step(policy_from(yaml), known, clock_at(kMonday));
        const Decision* fired = find(decisions, 300, rule);
        ASSERT_NE(fired, nullptr) << rule;
        EXPECT_EQ(fired->identity.pid, 300);
        World control;
        EXPECT_EQ(
            find(control.step(policy_from(yaml), kfd_any_snapshot(), clock_at(kMonday)), 300, rule),
            nullptr)
            << rule;
    }
}

}  // namespace
}  // namespace gpukill::guard::test
