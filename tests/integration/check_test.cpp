// `gpukill check` as CI scripts and node-problem-detector run it: exit 0 on a clean
// simulated host, 1 with the problem on its one stdout line, 2 when it cannot see.
#include <unistd.h>

#include <gtest/gtest.h>

#include "support.hpp"

namespace gpukill::testing {
namespace {

TEST(Check, CleanThenALeakThenABusyGpuForAnIdleCheck) {
    // Without privilege other users' holders are hidden, and the verdict is unknown.
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to see every holder";
    SimulatedHost host;
    CommandResult clean = host.gpukill({"check", "--no-rogue"});
    EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
    EXPECT_EQ(clean.out, "clean: 2 GPUs, no problem found\n");

    host.leak(1, "1G");
    CommandResult leaked = host.gpukill({"check", "--no-rogue"});
    EXPECT_EQ(leaked.exit_code, 1) << leaked.out << leaked.err;
    EXPECT_EQ(leaked.out,
              "1 problem: GPU 1: 1.0 GiB used and no process holds it (a GPU reset is the "
              "remedy)\n");
    CommandResult above = host.gpukill({"check", "--no-rogue", "--unaccounted-threshold", "2G"});
    EXPECT_EQ(above.exit_code, 0) << above.out;

    Workload job = host.run({"--gpu", "0", "--mem", "1G"});
    CommandResult idle =
        host.gpukill({"check", "--no-rogue", "--unaccounted-threshold", "2G", "--idle", "--json"});
    EXPECT_EQ(idle.exit_code, 1) << idle.out << idle.err;
    const auto doc = nlohmann::json::parse(idle.out);
    EXPECT_EQ(doc["verdict"], "problem");
    ASSERT_EQ(doc["problems"].size(), 1u);
    EXPECT_EQ(doc["problems"][0]["kind"], "unexpected_holder");
    EXPECT_EQ(doc["problems"][0]["pid"], job.pid());
    EXPECT_EQ(doc["problems"][0]["gpu"], 0);
    EXPECT_TRUE(process_alive(job.pid()));  // a check never acts
}

TEST(Check, AHostItCannotSeeIsUnknownAndBadOptionsAreExitThree) {
    SimulatedHost host;
    CommandResult blind = host.gpukill(
        {"check", "--no-rogue"}, {{"GPUKILL_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1"}});
    EXPECT_EQ(blind.exit_code, 2) << blind.out << blind.err;
    CommandResult bad = host.gpukill({"check", "--unaccounted-threshold", "lots"});
    EXPECT_EQ(bad.exit_code, 3);
    EXPECT_EQ(bad.err.rfind("gpukill: --unaccounted-threshold: ", 0), 0u) << bad.err;
    CommandResult both = host.gpukill({"check", "--idle", "--allow-user", "root"});
    EXPECT_EQ(both.exit_code, 3);
}

}  // namespace
}  // namespace gpukill::testing
