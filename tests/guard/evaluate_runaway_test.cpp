// Runaway rules over simulated time (stuck, idle, orphaned, rogue), protection, and the
// state that carries warnings across restarts.
#include <gtest/gtest.h>

#include "../host/host_test_support.hpp"
#include "guard_test_support.hpp"
#include "model/snapshot_json_read.hpp"

namespace gpukill::guard::test {
namespace {

const char* kStuck = R"(
mode: enforce
rules:
  - {name: stuck, kind: stuck, utilization_above: 95, for: 5m, action: terminate, grace_period: 0s}
)";

// One process alone on GPU 0 with the GPU `util` busy, `memory` held.
Snapshot lone(std::int64_t at, unsigned util, std::uint64_t memory) {
    return SnapshotBuilder(at)
        .gpu_utilization(0, util)
        .process({.pid = 42, .user = "alice", .memory = {{0, memory}}})
        .build();
}

TEST(GuardRunaway, AStuckJobIsCaughtOnlyAfterItsWindow) {
    const Policy policy = policy_from(kStuck);
    World world;
    // Sampled every 30 s: busy, memory flat.
    for (int step = 0; step < 10; ++step) {
        const std::int64_t at = kMonday + step * kMinute / 2;
        EXPECT_TRUE(world.step(policy, lone(at, 99, 4 * GiB), clock_at(at)).empty()) << step;
    }
    const std::int64_t five = kMonday + 5 * kMinute;
    auto decisions = world.step(policy, lone(five, 99, 4 * GiB), clock_at(five));
    ASSERT_EQ(decisions.size(), 1u);
    EXPECT_EQ(decisions[0].rule_id, "rules.stuck");
    EXPECT_EQ(decisions[0].verdict, Verdict::terminate);
    EXPECT_EQ(decisions[0].why,
              "GPU 0 above 95% busy for 5m with its memory not going down (now 4.0 GiB); the "
              "rule allows 5m");
}

TEST(GuardRunaway, MemoryGoingDownOrAQuietSampleOrAGapIsNotStuck) {
    const Policy policy = policy_from(kStuck);
    auto run = [&](auto sample) {
        World world;
        std::vector<Decision> last;
        for (int step = 0; step <= 10; ++step) {
            const std::int64_t at = kMonday + step * kMinute / 2;
            if (auto snapshot = sample(step, at))
                last = world.step(policy, *snapshot, clock_at(at));
        }
        return last;
    };
    // Training: memory drops and grows between steps.
    EXPECT_TRUE(run([](int step, std::int64_t at) -> std::optional<Snapshot> {
                    return lone(at, 99, (step % 2 == 0 ? 4 : 3) * GiB);
                }).empty());
    // One quiet sample two minutes ago restarts the window.
    EXPECT_TRUE(run([](int step, std::int64_t at) -> std::optional<Snapshot> {
                    return lone(at, step == 6 ? 20 : 99, 4 * GiB);
                }).empty());
    // Nothing seen for 3 minutes (guard was down): the streak cannot bridge it.
    EXPECT_TRUE(run([](int step, std::int64_t at) -> std::optional<Snapshot> {
                    if (step >= 2 && step <= 7) return std::nullopt;
                    return lone(at, 99, 4 * GiB);
                }).empty());
    // Memory growing is still stuck (not decreasing).
    EXPECT_EQ(run([](int step, std::int64_t at) -> std::optional<Snapshot> {
                  return lone(at, 99, (4 + static_cast<unsigned>(step)) * GiB);
              }).size(),
              1u);
}

TEST(GuardRunaway, OnASharedGpuOnlyAProcesssOwnUtilisationCounts) {
    const Policy policy = policy_from(kStuck);
    World world;
    std::vector<Decision> last;
    for (int step = 0; step <= 10; ++step) {
        const std::int64_t at = kMonday + step * kMinute / 2;
        // The GPU is busy, but which of the two is unknown: pid 43 reports its share.
        Snapshot snapshot =
            SnapshotBuilder(at)
                .gpu_utilization(0, 99)
                .process({.pid = 42, .user = "alice", .memory = {{0, GiB}}})
                .process({.pid = 43, .user = "bob", .memory = {{0, GiB}}, .utilization = 97})
                .build();
        last = world.step(policy, snapshot, clock_at(at));
    }
    EXPECT_EQ(pids_of(last), std::set<pid_t>{43});
}

TEST(GuardRunaway, AnIdleHolderIsCaughtAfterItsWindow) {
    const Policy policy = policy_from(R"(
rules:
  - {name: idle, kind: idle, memory_above: 1G, utilization_at_most: 0, for: 30m, action: warn}
)");
    World world;
    for (int minute = 0; minute < 30; ++minute) {
        const std::int64_t at = kMonday + minute * kMinute;
        ASSERT_TRUE(world.step(policy, lone(at, 0, 2 * GiB), clock_at(at)).empty()) << minute;
    }
    const std::int64_t at = kMonday + 30 * kMinute;
    auto decisions = world.step(policy, lone(at, 0, 2 * GiB), clock_at(at));
    ASSERT_EQ(decisions.size(), 1u);
    EXPECT_EQ(decisions[0].verdict, Verdict::warn);
    EXPECT_EQ(decisions[0].why,
              "holds 2.0 GiB of GPU 0 at 0% or less busy for 30m; the rule allows 30m");
    // A warn rule warns once.
    auto again = world.step(policy, lone(at + kMinute, 0, 2 * GiB), clock_at(at + kMinute));
    ASSERT_EQ(again.size(), 1u);
    EXPECT_EQ(again[0].verdict, Verdict::warned);
    // Under the memory threshold it is not a holder.
    World small;
    for (int minute = 0; minute <= 40; ++minute) {
        const std::int64_t t = kMonday + minute * kMinute;
        ASSERT_TRUE(small.step(policy, lone(t, 0, GiB / 2), clock_at(t)).empty());
    }
}

TEST(GuardRunaway, OrphansMatchingThePatternOnly) {
    const Policy policy = policy_from(R"(
rules:
  - {name: orphans, kind: orphaned, pattern: "python[0-9.]* .*train\\.py", action: kill,
     grace_period: 0s}
)");
    Snapshot snapshot = SnapshotBuilder(kMonday)
                            .process({.pid = 10,
                                      .user = "a",
                                      .memory = {{0, GiB}},
                                      .cmdline = {"python3", "/home/a/train.py", "--epochs", "9"},
                                      .orphaned = true})
                            .process({.pid = 11,
                                      .user = "a",
                                      .memory = {{0, GiB}},
                                      .cmdline = {"python3", "serve.py"},
                                      .orphaned = true})
                            .process({.pid = 12,
                                      .user = "a",
                                      .memory = {{0, GiB}},
                                      .cmdline = {"python3", "train.py"},
                                      .orphaned = false})
                            .build();
    World world;
    auto decisions = world.step(policy, snapshot, clock_at(kMonday));
    ASSERT_EQ(pids_of(decisions), std::set<pid_t>{10});
    EXPECT_EQ(decisions[0].verdict, Verdict::kill);
}

TEST(GuardRunaway, RogueScoreAboveTheThreshold) {
    const Policy policy = policy_from(
        "rules:\n  - {name: miners, kind: rogue, score_above: 70, action: kill, grace_period: "
        "0s}\n");
    Snapshot snapshot = SnapshotBuilder(kMonday)
                            .process({.pid = 10, .user = "a", .memory = {{0, GiB}}})
                            .process({.pid = 11, .user = "b", .memory = {{0, GiB}}})
                            .build();
    World world;
    world.rogue_scores[{10, 10}] = RogueScore{85, "stratum+tcp:// in its command line"};
    world.rogue_scores[{11, 11}] = RogueScore{70, ""};  // at the threshold is not above it
    auto decisions = world.step(policy, snapshot, clock_at(kMonday));
    ASSERT_EQ(pids_of(decisions), std::set<pid_t>{10});
    EXPECT_EQ(decisions[0].why,
              "rogue-detection score 85, above 70: stratum+tcp:// in its command line");
}

TEST(GuardRunaway, AProtectedProcessMatchingEveryRuleSurvives) {
    const Policy policy = policy_from(R"(
mode: enforce
action: kill
grace_period: 0s
defaults: {memory_limit: 1G, max_processes: 0, action: kill, grace_period: 0s}
gpus:
  0: {allowed_users: [nobody], allowed_executables: [nothing], exclusive: true,
      user_memory_limit: 1G, reserved_memory: 80G}
rules:
  - {name: stuck, kind: stuck, for: 1m}
  - {name: idle, kind: idle, for: 1m}
  - {name: orphans, kind: orphaned}
  - {name: rogue, kind: rogue, score_above: 1}
protected:
  users: [dbadmin]
  executables: [/opt/db/bin/dbserver]
  pids: [77]
)");
    World world;
    world.rogue_scores[{10, 10}] = RogueScore{99, ""};
    world.rogue_scores[{11, 11}] = RogueScore{99, ""};
    world.rogue_scores[{77, 77}] = RogueScore{99, ""};
    world.system_programs = {{11, 11}, {88, 88}};  // root's files, as read from procfs
    std::vector<Decision> last;
    for (int step = 0; step <= 4; ++step) {
        const std::int64_t at = kMonday + step * kMinute / 2;
        Snapshot snapshot = SnapshotBuilder(at)
                                .gpu_utilization(0, 100)
                                .process({.pid = 10,
                                          .user = "dbadmin",
                                          .memory = {{0, 40 * GiB}},
                                          .orphaned = true,
                                          .utilization = 100})
                                .process({.pid = 11,
                                          .user = "carl",
                                          .comm = "dbserver",
                                          .memory = {{0, 40 * GiB}},
                                          .exe = "/opt/db/bin/dbserver",
                                          .orphaned = true,
                                          .utilization = 100})
                                .process({.pid = 77,
                                          .user = "carl",
                                          .memory = {{0, 40 * GiB}},
                                          .orphaned = true,
                                          .utilization = 100})
                                .process({.pid = 88,
                                          .user = "carl",
                                          .comm = "Xorg",
                                          .memory = {{0, GiB}},
                                          .exe = "/usr/lib/xorg/Xorg",
                                          .orphaned = true,
                                          .utilization = 100})
                                .build();
        last = world.step(policy, snapshot, clock_at(at));
    }
    ASSERT_FALSE(last.empty());
    std::set<std::string> rules_matched;
    for (const Decision& decision : last) {
        EXPECT_EQ(decision.verdict, Verdict::protected_process) << decision.rule_id;
        rules_matched.insert(decision.rule_id);
    }
    // Per-process rules still say what they would have done; limits never count them.
    EXPECT_EQ(rules_matched,
              (std::set<std::string>{"gpus.0.allowed_executables", "gpus.0.allowed_users",
                                     "rules.orphans", "rules.rogue", "rules.stuck"}));
    EXPECT_TRUE(due_actions(last).empty());
    EXPECT_EQ(find(last, 10, "rules.rogue")->protected_because, "protected user dbadmin (policy)");
    EXPECT_EQ(find(last, 88, "rules.orphans")->protected_because,
              "on gpukill's protected list (built-in or protected.yaml)");
}

TEST(GuardRunaway, AWarningSurvivesARestartThroughTheStateFile) {
    const Policy policy = policy_from(R"(
mode: enforce
defaults: {memory_limit: 1G, action: terminate, grace_period: 10m}
)");
    Snapshot snapshot = SnapshotBuilder(kMonday)
                            .process({.pid = 42, .user = "a", .memory = {{0, 2 * GiB}}})
                            .build();
    host_test::TempDir dir;
    {
        World first;
        first.step(policy, snapshot, clock_at(kMonday));
        ASSERT_TRUE(save_state(dir.path() + "/state", first.state));
    }
    auto loaded = load_state(dir.path() + "/state");
    ASSERT_TRUE(loaded) << loaded.error().what;
    World restarted;
    restarted.state = *loaded;
    snapshot.timestamp_unix_ms = kMonday + 10 * kMinute;
    auto decisions = restarted.step(policy, snapshot, clock_at(kMonday + 10 * kMinute));
    ASSERT_EQ(decisions.size(), 1u);
    EXPECT_EQ(decisions[0].verdict, Verdict::terminate);
    EXPECT_EQ(decisions[0].warned_at_unix_ms, kMonday);

    // After a reboot the same PID and start time are another process.
    World rebooted;
    rebooted.state = *loaded;
    snapshot.boot_time_unix_s = *snapshot.boot_time_unix_s + 3600;
    auto fresh = rebooted.step(policy, snapshot, clock_at(kMonday + 10 * kMinute));
    ASSERT_EQ(fresh.size(), 1u);
    EXPECT_EQ(fresh[0].verdict, Verdict::warn);
}

TEST(GuardRunaway, TheStateFileIsStrict) {
    EXPECT_FALSE(parse_state("[]", "s.json"));
    EXPECT_FALSE(parse_state(R"({"schema_version": 2, "warnings": []})", "s.json"));
    EXPECT_FALSE(parse_state(R"({"schema_version": 1, "warnings": [{"pid": 1}]})", "s.json"));
    GuardState state;
    state.boot_time_unix_s = 5;
    state.warnings[{42, 7, "rules.x"}] = WarningRecord{123, true};
    auto round = parse_state(state_to_json(state).dump(), "s.json");
    ASSERT_TRUE(round) << round.error().what;
    EXPECT_EQ(*round, state);
}

}  // namespace
}  // namespace gpukill::guard::test

namespace gpukill::guard::test {
namespace {

// A moment recorded with `gpukill list --json` on a gpusim host: a trainer and a
// data loader (orphaned, with two workers holding GPU 1 by device file only).
TEST(GuardRecorded, ASavedSnapshotIsJudgedLikeALiveOne) {
    const std::string text = host_test::fixture("guard/two-workloads.json");
    auto snapshot = snapshot_from_json(text);
    ASSERT_TRUE(snapshot) << snapshot.error().what;
    const Policy policy = policy_from(R"(
users:
  root: {memory_limit: 7G, action: terminate, grace_period: 0s}
rules:
  - {name: loaders, kind: orphaned, pattern: "^dataloader$", action: kill, grace_period: 0s}
)");
    World world;
    world.reclaim_protected = {};
    auto decisions = world.step(policy, *snapshot, clock_at(snapshot->timestamp_unix_ms));
    // 8 GiB against 7 GiB: the loader (2 GiB, newest with memory) covers the excess; its
    // workers hold no memory of their own and are not chosen (a kill plan takes them
    // along as its children).
    ASSERT_EQ(pids_of(decisions), std::set<pid_t>{20463});
    EXPECT_EQ(find(decisions, 20463, "users.root.memory_limit")->verdict, Verdict::terminate);
    EXPECT_EQ(find(decisions, 20463, "rules.loaders")->verdict, Verdict::kill);
    auto due = due_actions(decisions);
    ASSERT_EQ(due.size(), 1u);
    EXPECT_EQ(due[0].verdict, Verdict::kill);
    EXPECT_EQ(due[0].identity, (ProcessIdentity{20463, 1139635}));
}

}  // namespace
}  // namespace gpukill::guard::test
