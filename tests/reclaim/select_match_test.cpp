// Match selectors: each one, their AND combination, and how they meet named PIDs.
#include <gtest/gtest.h>

#include <algorithm>

#include "fake_host.hpp"
#include "reclaim/match.hpp"
#include "reclaim/select.hpp"

namespace gpukill::reclaim {
namespace {

using reclaim_test::FakeHost;
using reclaim_test::kGiB;
using reclaim_test::kShell;
using reclaim_test::test_safety;

std::vector<pid_t> target_pids(const FakeHost& host, Selectors selectors,
                               SafetyContext safety = test_safety()) {
    selectors.batch = true;
    auto plan = build_kill_plan(host.snapshot(), host.table(), selectors, safety);
    EXPECT_TRUE(plan.has_value()) << plan.error().what;
    std::vector<pid_t> pids;
    if (plan) {
        for (const PlannedTarget& t : plan->targets) pids.push_back(t.identity.pid);
    }
    return pids;
}

using Pids = std::vector<pid_t>;

// Three holders: alice's trainer on GPU 0, bob's on GPU 0, alice's notebook on GPU 1.
FakeHost three_holders() {
    FakeHost host;
    ProcessInfo& trainer = host.add(200, kShell, "python3");
    trainer.cmdline = {"python3", "train.py", "--epochs", "90"};
    host.holds(200, 0, 30 * kGiB);
    host.add(300, kShell, "python3", 2000, "bob").cmdline = {"python3", "eval.py"};
    host.holds(300, 0, 2 * kGiB);
    host.add(400, kShell, "jupyter").cmdline = {"/usr/bin/python3", "-m", "jupyter"};
    host.holds(400, 1, 4 * kGiB);
    return host;
}

SafetyContext root_safety() {
    SafetyContext safety = test_safety();
    safety.can_signal_any_user = true;
    return safety;
}

TEST(ReclaimSelectMatch, GpuSelectsEveryHolderOfThatGpu) {
    Selectors s;
    s.gpu = 0;
    EXPECT_EQ(target_pids(three_holders(), s, root_safety()), (Pids{200, 300}));
}

TEST(ReclaimSelectMatch, SelectorsCombineWithAnd) {
    Selectors s;
    s.gpu = 0;
    s.user = "alice";
    EXPECT_EQ(target_pids(three_holders(), s, root_safety()), (Pids{200}));
    s.filter = "eval";
    EXPECT_EQ(target_pids(three_holders(), s, root_safety()), Pids{});
}

TEST(ReclaimSelectMatch, UserIsExactNameOrUidNeverSubstring) {
    FakeHost host;
    host.add(200, kShell, "a", 2001, "bobby");
    host.holds(200, 0, kGiB);
    host.add(300, kShell, "b", 2000, "bob");
    host.holds(300, 0, kGiB);
    Selectors s;
    s.user = "bob";
    EXPECT_EQ(target_pids(host, s, root_safety()), (Pids{300}));
    s.user = "bo";
    EXPECT_EQ(target_pids(host, s, root_safety()), Pids{});
    s.user = "2001";
    EXPECT_EQ(target_pids(host, s, root_safety()), (Pids{200}));
}

TEST(ReclaimSelectMatch, FilterSearchesCommAndCommandLine) {
    Selectors s;
    s.filter = "train\\.py";
    EXPECT_EQ(target_pids(three_holders(), s, root_safety()), (Pids{200}));
    s.filter = "^jupyter$";  // comm
    EXPECT_EQ(target_pids(three_holders(), s, root_safety()), (Pids{400}));
    s.filter = "-m jupyter";  // arguments joined by spaces
    EXPECT_EQ(target_pids(three_holders(), s, root_safety()), (Pids{400}));
}

TEST(ReclaimSelectMatch, BadRegexIsAnError) {
    FakeHost host = three_holders();
    Selectors s;
    s.filter = "train(";
    auto plan = build_kill_plan(host.snapshot(), host.table(), s, test_safety());
    ASSERT_FALSE(plan.has_value());
    EXPECT_TRUE(plan.error().what.starts_with("invalid --filter: ")) << plan.error().what;
}

TEST(ReclaimSelectMatch, ContainerByIdPrefixOrPodUid) {
    FakeHost host;
    host.add(200, kShell, "python3").container =
        ContainerInfo{.runtime = "containerd",
                      .id = std::string(60, 'a') + "beef",
                      .pod_uid = "0f1e2d3c-aaaa-bbbb-cccc-111122223333"};
    host.holds(200, 0, kGiB);
    host.add(300, kShell, "python3").container =
        ContainerInfo{.runtime = "docker", .id = "abcd" + std::string(60, '0')};
    host.holds(300, 0, kGiB);
    Selectors s;
    s.container = "aaaa";
    EXPECT_EQ(target_pids(host, s), (Pids{200}));
    s.container = "ABCD0000";  // ids are lower-case hex; typed upper case still matches
    EXPECT_EQ(target_pids(host, s), (Pids{300}));
    s.container = "0f1e2d3c-aaaa-bbbb-cccc-111122223333";
    EXPECT_EQ(target_pids(host, s), (Pids{200}));
    s.container = "0f1e2d3c";  // a pod UID matches only whole
    EXPECT_EQ(target_pids(host, s), Pids{});

    s.container = "abc";
    auto plan = build_kill_plan(host.snapshot(), host.table(), s, test_safety());
    ASSERT_FALSE(plan.has_value());
    EXPECT_NE(plan.error().what.find("at least 4"), std::string::npos);
}

// --image and --not-image: the seed's "every container process on GPU 1 not from an
// official image". A process in no container, or whose image is unknown, matches neither.
TEST(ReclaimSelectMatch, ImageAndNotImageMatchOnlyKnownContainerImages) {
    FakeHost host;
    host.add(200, kShell, "python3").container =
        ContainerInfo{.runtime = "docker", .id = std::string(64, 'a'), .image = "python:3.11"};
    host.holds(200, 1, kGiB);
    host.add(300, kShell, "xmrig").container = ContainerInfo{
        .runtime = "docker", .id = std::string(64, 'b'), .image = "ghcr.io/someone/miner:1"};
    host.holds(300, 1, kGiB);
    host.add(400, kShell, "python3").container =
        ContainerInfo{.runtime = "docker", .id = std::string(64, 'c')};  // image unknown
    host.holds(400, 1, kGiB);
    host.add(500, kShell, "python3");  // in no container
    host.holds(500, 1, kGiB);
    Selectors s;
    s.gpu = 1;
    s.not_image = "^(docker\\.io/)?(library/)?[a-z0-9._-]+(:[^/]*)?$";
    EXPECT_EQ(target_pids(host, s), (Pids{300}));
    s.not_image.reset();
    s.image = "^python:";
    EXPECT_EQ(target_pids(host, s), (Pids{200}));
    s.image = "(";
    auto plan = build_kill_plan(host.snapshot(), host.table(), s, test_safety());
    ASSERT_FALSE(plan.has_value());
    EXPECT_TRUE(plan.error().what.starts_with("invalid --image: ")) << plan.error().what;
}

// --namespace and --pod: exact names, as the runtime's bundle recorded them; a process
// whose pod is not known matches neither, and a name Kubernetes would refuse is an error,
// not a selector that quietly matches nothing.
TEST(ReclaimSelectMatch, NamespaceAndPodMatchExactlyAndOnlyKnownPods) {
    FakeHost host;
    host.add(200, kShell, "python3").container = ContainerInfo{.runtime = "containerd",
                                                               .id = std::string(64, 'a'),
                                                               .pod_namespace = "vision",
                                                               .pod_name = "trainer-0"};
    host.holds(200, 0, kGiB);
    host.add(300, kShell, "python3").container =
        ContainerInfo{.runtime = "containerd",
                      .id = std::string(64, 'b'),
                      .pod_namespace = "research",
                      .pod_name = "trainer-0"};  // the same pod name, another namespace
    host.holds(300, 0, kGiB);
    host.add(400, kShell, "python3").container =
        ContainerInfo{.runtime = "containerd", .id = std::string(64, 'c')};  // pod unknown
    host.holds(400, 0, kGiB);
    host.add(500, kShell, "python3");  // in no container
    host.holds(500, 0, kGiB);
    Selectors s;
    s.pod_namespace = "vision";
    EXPECT_EQ(target_pids(host, s), (Pids{200}));
    s.pod_namespace = "visio";  // exact, never a prefix
    EXPECT_EQ(target_pids(host, s), Pids{});
    s.pod_namespace.reset();
    s.pod = "trainer-0";
    EXPECT_EQ(target_pids(host, s), (Pids{200, 300}));
    s.pod_namespace = "research";
    EXPECT_EQ(target_pids(host, s), (Pids{300}));
    EXPECT_EQ(describe_match_selectors(s), "--namespace research --pod trainer-0");

    for (const auto& [wanted_namespace, wanted_pod] :
         std::vector<std::pair<std::optional<std::string>, std::optional<std::string>>>{
             {"Vision", std::nullopt},
             {"", std::nullopt},
             {"vis*", std::nullopt},
             {std::nullopt, "trainer_0"},
             {std::nullopt, ""}}) {
        Selectors bad;
        bad.pod_namespace = wanted_namespace;
        bad.pod = wanted_pod;
        auto plan = build_kill_plan(host.snapshot(), host.table(), bad, test_safety());
        ASSERT_FALSE(plan.has_value()) << wanted_namespace.value_or("") << wanted_pod.value_or("");
        EXPECT_TRUE(plan.error().what.starts_with(wanted_namespace ? "invalid --namespace: "
                                                                   : "invalid --pod: "))
            << plan.error().what;
    }
}

// A selector alone asks for --batch, as --container does: a namespace can hold many pods.
TEST(ReclaimSelectMatch, ANamespaceOrPodAloneNeedsBatchConfirmation) {
    FakeHost host;
    host.add(200, kShell, "python3").container = ContainerInfo{
        .runtime = "containerd", .id = std::string(64, 'a'), .pod_namespace = "vision"};
    host.holds(200, 0, kGiB);
    Selectors s;
    s.pod_namespace = "vision";
    auto plan = build_kill_plan(host.snapshot(), host.table(), s, test_safety());
    ASSERT_TRUE(plan.has_value()) << plan.error().what;
    EXPECT_TRUE(plan->needs_batch_confirmation);
    s.pod_namespace.reset();
    s.pod = "trainer-0";
    plan = build_kill_plan(host.snapshot(), host.table(), s, test_safety());
    ASSERT_TRUE(plan.has_value()) << plan.error().what;
    EXPECT_TRUE(plan->needs_batch_confirmation);
}

TEST(ReclaimSelectMatch, MinMemoryUsesDriverReportedMemoryOnAnyGpu) {
    Selectors s;
    s.min_memory_bytes = 4 * kGiB;
    EXPECT_EQ(target_pids(three_holders(), s, root_safety()), (Pids{200, 400}));
    s.min_memory_bytes = 4 * kGiB + 1;
    EXPECT_EQ(target_pids(three_holders(), s, root_safety()), (Pids{200}));
}

TEST(ReclaimSelectMatch, TheReasonShowsTheMemoryThresholdInUnitsAPersonReads) {
    Selectors s;
    s.min_memory_bytes = 8 * kGiB;
    EXPECT_EQ(describe_match_selectors(s), "--min-memory 8.0 GiB");
}

TEST(ReclaimSelectMatch, OrphanedMeansReparentedToInitOutsideItsOwnSession) {
    FakeHost host;
    host.add(200, 1, "pt_data_worker");  // its trainer died
    host.holds(200, 0, std::nullopt, false);
    host.add(300, 1, "daemon").sid = 300;  // a daemon: its own session
    host.holds(300, 0, kGiB);
    Selectors s;
    s.orphaned = true;
    EXPECT_EQ(target_pids(host, s), (Pids{200}));
}

TEST(ReclaimSelectMatch, UnlistedNeedsAKnownDriverList) {
    FakeHost host;
    host.add(200, kShell, "worker");
    host.holds(200, 0, std::nullopt, false);
    host.add(300, kShell, "python3");
    host.holds(300, 0, kGiB);
    host.add(400, kShell, "worker");
    host.holds(400, 1, std::nullopt, false);
    host.hide_driver_list(1);  // GPU 1's list unreadable: every holder would look unlisted
    Selectors s;
    s.unlisted = true;
    EXPECT_EQ(target_pids(host, s), (Pids{200}));
}

TEST(ReclaimSelectMatch, ManyProcessSelectorsNeedBatch) {
    FakeHost host = three_holders();
    Selectors s;
    s.gpu = 1;
    auto preview = build_kill_plan(host.snapshot(), host.table(), s, test_safety());
    ASSERT_TRUE(preview);
    EXPECT_TRUE(preview->needs_batch_confirmation);
    EXPECT_EQ(preview->targets.size(), 1U);  // still listed, for the preview
    s.batch = true;
    auto confirmed = build_kill_plan(host.snapshot(), host.table(), s, test_safety());
    ASSERT_TRUE(confirmed);
    EXPECT_FALSE(confirmed->needs_batch_confirmation);
}

TEST(ReclaimSelectMatch, SelectorsFilterNamedPids) {
    FakeHost host = three_holders();
    Selectors s;
    s.pid_arguments = {"200"};
    s.gpu = 0;
    s.batch = true;
    auto plan = build_kill_plan(host.snapshot(), host.table(), s, test_safety());
    ASSERT_TRUE(plan);
    ASSERT_EQ(plan->targets.size(), 1U);  // bob's 300 on GPU 0 is not added
    EXPECT_EQ(plan->targets[0].reason, TargetReason::named_pid);

    // The caller's belief about 400 ("it is on GPU 0") is wrong: nothing is signalled.
    s.pid_arguments = {"200", "400"};
    plan = build_kill_plan(host.snapshot(), host.table(), s, test_safety());
    ASSERT_TRUE(plan);
    ASSERT_EQ(plan->refusals.size(), 1U);
    EXPECT_EQ(plan->refusals[0].kind, RefusalKind::not_found);
    EXPECT_NE(plan->refusals[0].why.find("does not match --gpu 0"), std::string::npos);
    EXPECT_TRUE(plan->aborted());
}

TEST(ReclaimSelectMatch, MatchedTargetsSayWhatMatched) {
    Selectors s;
    s.gpu = 1;
    s.batch = true;
    FakeHost host = three_holders();
    auto plan = build_kill_plan(host.snapshot(), host.table(), s, test_safety());
    ASSERT_TRUE(plan);
    ASSERT_EQ(plan->targets.size(), 1U);
    EXPECT_EQ(plan->targets[0].reason, TargetReason::selector_match);
    EXPECT_EQ(plan->targets[0].reason_detail, "matched --gpu 1");
}

}  // namespace
}  // namespace gpukill::reclaim
