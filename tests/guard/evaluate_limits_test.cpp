// Limits over recorded snapshots with an injected clock: per user (warn, grace,
// terminate; dry-run; compliance), per group, time windows, GPUs.
#include <gtest/gtest.h>

#include "guard_test_support.hpp"

namespace gpukill::guard::test {
namespace {

const char* kAliceLimit = R"(
mode: enforce
users:
  alice:
    memory_limit: 8G
    action: terminate
    grace_period: 5m
)";

Snapshot alice_over(std::int64_t at) {
    return SnapshotBuilder(at)
        .process({.pid = 100, .user = "alice", .memory = {{0, 6 * GiB}}, .start = 1000})
        .process({.pid = 200, .user = "alice", .memory = {{1, 6 * GiB}}, .start = 2000})
        .process({.pid = 300, .user = "bob", .memory = {{0, 30 * GiB}}})
        .build();
}

TEST(GuardLimits, AUserOverTheLimitIsWarnedThenTerminatedAfterTheGracePeriod) {
    const Policy policy = policy_from(kAliceLimit);
    World world;
    auto first = world.step(policy, alice_over(kMonday), clock_at(kMonday));
    // Only the newest process is needed to get alice back under 8G.
    ASSERT_EQ(first.size(), 1u);
    const Decision& warned = first[0];
    EXPECT_EQ(warned.identity.pid, 200);
    EXPECT_EQ(warned.rule_id, "users.alice.memory_limit");
    EXPECT_EQ(warned.verdict, Verdict::warn);
    EXPECT_EQ(warned.acts_at_unix_ms, kMonday + 5 * kMinute);
    EXPECT_EQ(warned.why,
              "alice's 2 processes use 12.0 GiB of GPU memory, above the limit of 8.0 GiB; this "
              "one holds 6.0 GiB and is among the newest that cover the 4.0 GiB over");

    auto during =
        world.step(policy, alice_over(kMonday + 2 * kMinute), clock_at(kMonday + 2 * kMinute));
    ASSERT_EQ(during.size(), 1u);
    EXPECT_EQ(during[0].verdict, Verdict::in_grace);
    EXPECT_EQ(during[0].warned_at_unix_ms, kMonday);

    auto after =
        world.step(policy, alice_over(kMonday + 5 * kMinute), clock_at(kMonday + 5 * kMinute));
    ASSERT_EQ(after.size(), 1u);
    EXPECT_EQ(after[0].verdict, Verdict::terminate);
    auto due = due_actions(after);
    ASSERT_EQ(due.size(), 1u);
    EXPECT_EQ(due[0].identity, (ProcessIdentity{200, 2000}));
}

TEST(GuardLimits, AProcessThatCompliesIsForgotten) {
    const Policy policy = policy_from(kAliceLimit);
    World world;
    world.step(policy, alice_over(kMonday), clock_at(kMonday));
    Snapshot within = SnapshotBuilder(kMonday + kMinute)
                          .process({.pid = 100, .user = "alice", .memory = {{0, 6 * GiB}}})
                          .build();
    EXPECT_TRUE(world.step(policy, within, clock_at(kMonday + kMinute)).empty());
    EXPECT_TRUE(world.state.warnings.empty());
    // Breaking it again starts a new grace period.
    auto again =
        world.step(policy, alice_over(kMonday + 6 * kMinute), clock_at(kMonday + 6 * kMinute));
    ASSERT_EQ(again.size(), 1u);
    EXPECT_EQ(again[0].verdict, Verdict::warn);
}

TEST(GuardLimits, DryRunWarningsAreNotCountedOnceEnforced) {
    Policy policy = policy_from(kAliceLimit);
    policy.mode = Mode::dry_run;
    World world;
    world.step(policy, alice_over(kMonday), clock_at(kMonday));
    // The dry run follows its own grace period to the action it would take...
    auto dry =
        world.step(policy, alice_over(kMonday + 6 * kMinute), clock_at(kMonday + 6 * kMinute));
    ASSERT_EQ(dry.size(), 1u);
    EXPECT_EQ(dry[0].verdict, Verdict::terminate);
    // ...but nobody was told, so enforcement warns first.
    policy.mode = Mode::enforce;
    auto enforced =
        world.step(policy, alice_over(kMonday + 7 * kMinute), clock_at(kMonday + 7 * kMinute));
    ASSERT_EQ(enforced.size(), 1u);
    EXPECT_EQ(enforced[0].verdict, Verdict::warn);
}

TEST(GuardLimits, GraceZeroActsAtOnceAndKillBeatsTerminate) {
    const Policy policy = policy_from(R"(
defaults: {max_processes: 1, action: terminate, grace_period: 0s}
users:
  alice: {blocked_gpus: [1], action: kill, grace_period: 0s}
)");
    World world;
    auto decisions = world.step(policy, alice_over(kMonday), clock_at(kMonday));
    ASSERT_NE(find(decisions, 200, "defaults.max_processes"), nullptr);
    EXPECT_EQ(find(decisions, 200, "defaults.max_processes")->verdict, Verdict::terminate);
    EXPECT_EQ(find(decisions, 200, "users.alice.blocked_gpus")->why, "alice is blocked from GPU 1");
    auto due = due_actions(decisions);
    ASSERT_EQ(due.size(), 1u);
    EXPECT_EQ(due[0].verdict, Verdict::kill);
    EXPECT_EQ(due[0].because.size(), 2u);
}

TEST(GuardLimits, ATimeWindowChangesTheLimit) {
    const Policy policy = policy_from(R"(
defaults: {memory_limit: 16G}
windows:
  - name: working-hours
    days: [weekdays]
    hours: 09:00-18:00
    memory_limit: 4G
  - name: nights
    hours: 22:00-06:00
    users: {alice: {memory_limit: 2G}}
)");
    const Snapshot snapshot = SnapshotBuilder(kMonday)
                                  .process({.pid = 100, .user = "alice", .memory = {{0, 6 * GiB}}})
                                  .build();
    auto judge = [&](int weekday, int hour) {
        World world;
        return world.step(policy, snapshot, clock_at(kMonday, weekday, hour));
    };
    auto monday_morning = judge(0, 10);
    ASSERT_EQ(monday_morning.size(), 1u);
    EXPECT_EQ(monday_morning[0].rule_id, "windows.working-hours.memory_limit");
    EXPECT_TRUE(judge(0, 20).empty());  // Monday evening: the defaults' 16G
    EXPECT_TRUE(judge(5, 10).empty());  // Saturday: no working hours
    // Saturday 03:00 is Friday's night.
    auto night = judge(5, 3);
    ASSERT_EQ(night.size(), 1u);
    EXPECT_EQ(night[0].rule_id, "windows.nights.users.alice.memory_limit");
}

TEST(GuardLimits, AUsersOwnLimitBeatsAWindowForEveryone) {
    const Policy policy = policy_from(R"(
users: {alice: {memory_limit: 32G}}
windows:
  - {name: day, hours: 09:00-18:00, memory_limit: 4G}
)");
    Snapshot snapshot = SnapshotBuilder(kMonday)
                            .process({.pid = 100, .user = "alice", .memory = {{0, 6 * GiB}}})
                            .process({.pid = 101, .user = "bob", .memory = {{0, 6 * GiB}}})
                            .build();
    World world;
    auto decisions = world.step(policy, snapshot, clock_at(kMonday, 0, 10));
    EXPECT_EQ(pids_of(decisions), std::set<pid_t>{101});
}

TEST(GuardLimits, GroupsAddUpTheirMembers) {
    const Policy policy = policy_from(R"(
groups:
  interns: {memory_limit: 10G}
  vision: {members: [carol, dave], max_processes: 2}
)");
    Snapshot snapshot = SnapshotBuilder(kMonday)
                            .process({.pid = 10, .user = "ivan", .memory = {{0, 6 * GiB}}})
                            .process({.pid = 11, .user = "jane", .memory = {{1, 6 * GiB}}})
                            .process({.pid = 20, .user = "carol", .memory = {{0, GiB}}})
                            .process({.pid = 21, .user = "dave", .memory = {{0, GiB}}})
                            .process({.pid = 22, .user = "dave", .memory = {{1, GiB}}})
                            .build();
    World world;
    world.unix_groups["interns"] = {"ivan", "jane"};
    auto decisions = world.step(policy, snapshot, clock_at(kMonday));
    EXPECT_EQ(pids_of(decisions), (std::set<pid_t>{11, 22}));
    EXPECT_NE(find(decisions, 11, "groups.interns.memory_limit"), nullptr);
    EXPECT_EQ(find(decisions, 22, "groups.vision.max_processes")->why,
              "group vision's 3 processes hold GPUs, above the limit of 2; this is one of the 1 "
              "newest");
    // An unknown Unix group has no members.
    World nobody;
    EXPECT_EQ(pids_of(nobody.step(policy, snapshot, clock_at(kMonday))), std::set<pid_t>{22});
}

TEST(GuardLimits, AnAllowedExecutableGpuCatchesAnIntruder) {
    const Policy policy = policy_from(R"(
gpus:
  1:
    allowed_executables: [/opt/triton/bin/tritonserver, vllm]
    action: kill
    grace_period: 0s
)");
    Snapshot snapshot =
        SnapshotBuilder(kMonday)
            .process({.pid = 10,
                      .user = "svc",
                      .comm = "tritonserver",
                      .memory = {{1, GiB}},
                      .exe = "/opt/triton/bin/tritonserver"})
            .process({.pid = 11,
                      .user = "svc",
                      .comm = "vllm",
                      .memory = {{1, GiB}},
                      .exe = "/usr/bin/python3"})
            // Same name, other path: a path entry is exact.
            .process({.pid = 12,
                      .user = "eve",
                      .comm = "tritonserver",
                      .memory = {{1, GiB}},
                      .exe = "/tmp/tritonserver"})
            // A prefix of an allowed name is not the name.
            .process({.pid = 13,
                      .user = "eve",
                      .comm = "vllm-miner",
                      .memory = {{1, GiB}},
                      .exe = "/tmp/vllm-miner"})
            .process({.pid = 14, .user = "eve", .comm = "python3", .memory = {{0, GiB}}})
            .build();
    World world;
    auto decisions = world.step(policy, snapshot, clock_at(kMonday));
    EXPECT_EQ(pids_of(decisions), (std::set<pid_t>{12, 13}));
    const Decision* intruder = find(decisions, 13, "gpus.1.allowed_executables");
    ASSERT_NE(intruder, nullptr);
    EXPECT_EQ(intruder->verdict, Verdict::kill);
    EXPECT_EQ(intruder->why,
              "GPU 1 is for /opt/triton/bin/tritonserver, vllm; \"vllm-miner\" "
              "(\"/tmp/vllm-miner\") is not one of them");
}

TEST(GuardLimits, AllowedUsersExclusiveUseAndPerUserMemoryOnAGpu) {
    const Policy policy = policy_from(R"(
gpus:
  0: {exclusive: true}
  1: {allowed_users: [svc], user_memory_limit: 8G}
)");
    Snapshot snapshot =
        SnapshotBuilder(kMonday)
            .process({.pid = 10, .user = "bob", .memory = {{0, GiB}}, .start = 500})
            .process({.pid = 11, .user = "alice", .memory = {{0, GiB}}, .start = 100})
            .process({.pid = 12, .user = "svc", .memory = {{1, 5 * GiB}}, .start = 1})
            .process({.pid = 13, .user = "svc", .memory = {{1, 5 * GiB}}, .start = 2})
            .process({.pid = 14, .user = "eve", .memory = {{1, GiB}}})
            .build();
    World world;
    auto decisions = world.step(policy, snapshot, clock_at(kMonday));
    EXPECT_EQ(find(decisions, 10, "gpus.0.exclusive")->why,
              "GPU 0 is exclusive and alice holds it (their process started first)");
    EXPECT_EQ(find(decisions, 11, "gpus.0.exclusive"), nullptr);
    EXPECT_NE(find(decisions, 13, "gpus.1.user_memory_limit"), nullptr);
    EXPECT_EQ(find(decisions, 12, "gpus.1.user_memory_limit"), nullptr);
    EXPECT_EQ(find(decisions, 14, "gpus.1.allowed_users")->why,
              "GPU 1 is for svc; eve is not one of them");
}

TEST(GuardLimits, ReservedMemoryTakesTheNewestOfTheOthers) {
    const Policy policy = policy_from("gpus:\n  0: {allowed_users: [svc], reserved_memory: 60G}\n");
    Snapshot snapshot = SnapshotBuilder(kMonday)
                            .process({.pid = 10, .user = "svc", .memory = {{0, 50 * GiB}}})
                            .process({.pid = 11, .user = "bob", .memory = {{1, 50 * GiB}}})
                            .build();
    World world;
    // bob is on GPU 1 only: GPU 0's reservation is intact (svc itself may use it).
    EXPECT_EQ(pids_of(world.step(policy, snapshot, clock_at(kMonday))), std::set<pid_t>{});

    const Policy free_only = policy_from("gpus:\n  0: {reserved_memory: 60G}\n");
    Snapshot crowded = SnapshotBuilder(kMonday)
                           .process({.pid = 10, .user = "a", .memory = {{0, 15 * GiB}}, .start = 1})
                           .process({.pid = 11, .user = "b", .memory = {{0, 10 * GiB}}, .start = 2})
                           .build();
    auto decisions = world.step(free_only, crowded, clock_at(kMonday));
    // 25G used, 20G available: the newest (pid 11) covers the 5G over.
    EXPECT_EQ(pids_of(decisions), std::set<pid_t>{11});
    EXPECT_EQ(decisions[0].why,
              "processes use 25.0 GiB of GPU 0, which keeps 60.0 GiB of its 80.0 GiB reserved; "
              "this one holds 10.0 GiB and is among the newest that cover the 5.0 GiB over");
}

TEST(GuardLimits, UserAllowedGpus) {
    const Policy policy = policy_from("users:\n  alice: {allowed_gpus: [0]}\n");
    World world;
    auto decisions = world.step(policy, alice_over(kMonday), clock_at(kMonday));
    ASSERT_EQ(decisions.size(), 1u);
    EXPECT_EQ(decisions[0].identity.pid, 200);
    EXPECT_EQ(decisions[0].why, "alice is not allowed on GPU 1");
    EXPECT_EQ(decisions[0].verdict, Verdict::warn);
}

}  // namespace
}  // namespace gpukill::guard::test
