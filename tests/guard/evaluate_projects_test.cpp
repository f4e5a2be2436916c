#include <gtest/gtest.h>

#include "engine/project_facts.hpp"
#include "guard_test_support.hpp"
#include "host/pod_namespaces.hpp"

namespace gpukill::guard::test {
namespace {

const char* kProjects = R"(
projects:
  vision:
    kubernetes_namespaces: [vision-train]
    slurm_accounts: [vision]
    memory_limit: 10G
  nlp:
    slurm_jobs: ["4242"]
    unix_groups: [nlp]
    max_processes: 1
    allowed_gpus: [1]
)";

TEST(GuardProjects, AProjectAddsUpProcessesFromEverySourceThatNamesIt) {
    const Policy policy = policy_from(kProjects);
    Snapshot snapshot = SnapshotBuilder(kMonday)
                            .process({.pid = 10, .user = "ann", .memory = {{0, 6 * GiB}}})
                            .process({.pid = 11, .user = "bob", .memory = {{1, 6 * GiB}}})
                            .process({.pid = 12, .user = "cy", .memory = {{1, 6 * GiB}}})
                            .build();
    World world;
    world.project_facts[{10, 10}] = ProjectFacts{.kubernetes_namespace = "vision-train"};
    world.project_facts[{11, 11}] = ProjectFacts{.slurm_account = "vision"};
    world.project_facts[{12, 12}] = ProjectFacts{.slurm_account = "other"};
    auto decisions = world.step(policy, snapshot, clock_at(kMonday));
    // 10 and 11 are vision's: 12 GiB over a 10 GiB limit, the newest (11) covers it.
    EXPECT_EQ(pids_of(decisions), std::set<pid_t>{11});
    const Decision* over = find(decisions, 11, "projects.vision.memory_limit");
    ASSERT_NE(over, nullptr);
    EXPECT_NE(over->why.find("project vision's 2 processes use 12.0 GiB"), std::string::npos)
        << over->why;
    EXPECT_NE(over->why.find("(counted in project vision: Slurm account vision)"),
              std::string::npos)
        << over->why;
}

TEST(GuardProjects, JobsGroupsAndAllowedGpusAndTheFirstProjectWins) {
    const Policy policy = policy_from(kProjects);
    SnapshotBuilder builder(kMonday);
    builder.process({.pid = 20, .user = "dee", .memory = {{1, GiB}}})
        .process({.pid = 21, .user = "eve", .memory = {{0, GiB}}});
    Snapshot snapshot = builder.build();
    snapshot.processes[0].info.slurm_job = SlurmJobInfo{.job_id = "4242"};
    World world;
    world.unix_groups["nlp"] = {"eve"};
    // eve is in nlp by group and in vision by account: vision comes first in the file.
    world.project_facts[{21, 21}] = ProjectFacts{.slurm_account = "vision"};
    auto decisions = world.step(policy, snapshot, clock_at(kMonday));
    EXPECT_EQ(pids_of(decisions), std::set<pid_t>{});

    world = World{};
    world.unix_groups["nlp"] = {"eve"};
    decisions = world.step(policy, snapshot, clock_at(kMonday));
    // Now both are nlp's: two processes over a limit of one, and eve is on GPU 0.
    const Decision* off_gpu = find(decisions, 21, "projects.nlp.allowed_gpus");
    ASSERT_NE(off_gpu, nullptr);
    EXPECT_NE(off_gpu->why.find("may use GPUs 1, and this process holds GPU 0"), std::string::npos);
    EXPECT_NE(off_gpu->why.find("counted in project nlp: eve is in the Unix group nlp"),
              std::string::npos)
        << off_gpu->why;
    EXPECT_NE(find(decisions, 21, "projects.nlp.max_processes"), nullptr);
    EXPECT_EQ(find(decisions, 20, "projects.nlp.max_processes"), nullptr);  // the older one
}

TEST(GuardProjects, APolicyProjectMustMatchSomethingAndLimitSomething) {
    for (const char* text :
         {"projects:\n  x: {memory_limit: 1G}\n", "projects:\n  x: {slurm_accounts: [a]}\n",
          "projects:\n  x: {slurm_accounts: [a], memory_limt: 1G}\n"}) {
        auto policy = parse_policy(text, "p.yaml");
        ASSERT_FALSE(policy) << text;
        EXPECT_EQ(policy.error().what.rfind("p.yaml:2:", 0), 0u) << policy.error().what;
    }
}

TEST(ProjectFactsReading, PodNamespacesFromTheKubeletsLogDirectoryNames) {
    auto namespaces =
        pod_namespaces_from_names({"vision-train_trainer-7f9c_0d1e2f3a-1111-2222-3333-444455556666",
                                   "kube-system_x_y", "no-underscores", "_a_b", "a_b_"});
    EXPECT_EQ(namespaces.size(), 2u);
    EXPECT_EQ(namespaces["0d1e2f3a-1111-2222-3333-444455556666"], "vision-train");
    EXPECT_EQ(namespaces["y"], "kube-system");
}

}  // namespace
}  // namespace gpukill::guard::test
