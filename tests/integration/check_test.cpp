// `gpukill check` as CI scripts and node-problem-detector run it: exit 0 on a clean
// simulated host, 1 with the problem on its one stdout line, 2 when it cannot see.
#include <unistd.h>

#include <gtest/gtest.h>

#include "rogue_support.hpp"
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

// A program built under /tmp that sets its own name (a CI runner's build, a JIT tool)
// scores 40: exe_in_temp_dir and name_mismatch. audit --rogue reports it; check, which
// drains nodes, notes it and stays clean. One sign only hiding explains (a copy named
// like a kernel thread) is still a problem (issue 33).
TEST(Check, ABuildInTmpThatNamesItselfIsANoteAndAKernelThreadsNameAProblem) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to see every holder";
    SimulatedHost host;
    ScratchDir build("/tmp");
    const std::string program = copy_of_gpusim(build, "gpusim");
    Workload job = host.run_program(program, {"--gpu", "0", "--mem", "1G", "--name", "train-job"});

    RogueRun rogue = rogue_json(host, build);
    ASSERT_EQ(rogue.result.exit_code, 9) << rogue.result.out << rogue.result.err;
    const nlohmann::json* finding = entry_for(rogue.doc["findings"], job.pid());
    ASSERT_NE(finding, nullptr) << rogue.result.out;
    EXPECT_EQ((*finding)["score"], 40);
    EXPECT_EQ(signals_of(*finding), (std::set<std::string>{"exe_in_temp_dir", "name_mismatch"}));

    // The same state and configuration as the scan.
    std::vector<std::string> args = {"--state-dir", build / "state", "--config-dir", build / "etc",
                                     "check"};
    CommandResult check = host.gpukill(args);
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
    EXPECT_EQ(check.out,
              "clean: 2 GPUs, no problem found; 1 rogue finding under 60 (audit --rogue)\n");
    args.push_back("--json");
    const nlohmann::json doc = nlohmann::json::parse(host.gpukill(args).out);
    EXPECT_EQ(doc["verdict"], "clean");
    bool noted = false;
    for (const auto& note : doc["notes"]) {
        noted |= note.get<std::string>().starts_with("PID " + std::to_string(job.pid()) +
                                                     " (train-job) scores 40");
    }
    EXPECT_TRUE(noted) << doc.dump(2);

    const std::string kworker = copy_of_gpusim(build, "kworker");
    Workload hidden = host.run_program(kworker, {"--gpu", "1", "--mem", "256M"});
    args.pop_back();
    CommandResult flagged = host.gpukill(args);
    EXPECT_EQ(flagged.exit_code, 1) << flagged.out << flagged.err;
    EXPECT_NE(
        flagged.out.find("PID " + std::to_string(hidden.pid()) + " (kworker) looks like a miner"),
        std::string::npos)
        << flagged.out;
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
