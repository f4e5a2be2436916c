// What a newcomer types first: misspelt commands and options get the closest spelling,
// `gpukill reset 0` resets GPU 0, and options that belong to one command imply it.
#include <gtest/gtest.h>

#include <regex>

#include "support.hpp"

namespace gpukill::testing {
namespace {

TEST(FirstContact, AMisspeltCommandIsNotTakenForAPid) {
    SimulatedHost host;
    CommandResult typo = host.gpukill({"lsit"});
    EXPECT_EQ(typo.exit_code, 3);
    EXPECT_EQ(typo.err, "gpukill: unknown command 'lsit'; did you mean 'list'?\n");
    EXPECT_EQ(typo.out, "");
    CommandResult unknown = host.gpukill({"frobnicate"});
    EXPECT_EQ(unknown.exit_code, 3);
    EXPECT_EQ(unknown.err.rfind("gpukill: unknown command 'frobnicate' (commands: list, ", 0), 0u)
        << unknown.err;
    EXPECT_EQ(unknown.err.find("not a PID"), std::string::npos);
}

TEST(FirstContact, AMisspeltOptionGetsTheClosestOne) {
    SimulatedHost host;
    CommandResult typo = host.gpukill({"list", "--detail"});
    EXPECT_EQ(typo.exit_code, 3);
    EXPECT_EQ(typo.err, "gpukill: unknown option '--detail'; did you mean '--details'?\n");
    CommandResult far = host.gpukill({"list", "--zzzzzz"});
    EXPECT_EQ(far.exit_code, 3);
    EXPECT_EQ(far.err, "gpukill: unknown option '--zzzzzz' (see gpukill --help)\n");
}

// Words that contradicted themselves (issue 33): "did you mean '--no-rogue'" to someone
// who typed --no-rogue, and "1 required PID missing" for a --pid with no value. An
// option is now taken before its command as after it (issue 30: one rule for every
// option), so the first is simply obeyed.
TEST(FirstContact, AnOptionBeforeItsCommandOrWithoutItsValueIsToldWhatToDo) {
    SimulatedHost host;
    CommandResult early = host.gpukill({"--no-rogue", "check"});
    CommandResult after = host.gpukill({"check", "--no-rogue"});
    EXPECT_NE(early.exit_code, 3) << early.err;
    EXPECT_EQ(early.exit_code, after.exit_code);
    EXPECT_EQ(early.out, after.out);
    EXPECT_EQ(early.err, "");
    CommandResult empty = host.gpukill({"kill", "--pid"});
    EXPECT_EQ(empty.exit_code, 3);
    EXPECT_EQ(empty.err, "gpukill: --pid needs a value: a PID (see gpukill --help)\n");
}

TEST(FirstContact, ResetTakesItsGpuAsAWordAsNvidiaSmiUsersType) {
    SimulatedHost host;
    CommandResult r = host.gpukill({"reset", "1", "--dry-run", "--json"});
    ASSERT_FALSE(r.out.empty()) << r.err;
    const auto doc = nlohmann::json::parse(r.out);
    ASSERT_EQ(doc["gpus"].size(), 1u) << r.out;
    EXPECT_EQ(doc["gpus"][0]["index"], 1);
    EXPECT_EQ(doc["dry_run"], true);
    CommandResult both = host.gpukill({"reset", "1", "--gpu", "0", "--dry-run"});
    EXPECT_EQ(both.exit_code, 3);
    EXPECT_EQ(both.err, "gpukill: reset 1 and --gpu 0 name different GPUs\n");
}

TEST(FirstContact, OptionsOfOneCommandImplyIt) {
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "1G", "--name", "trainer"});
    CommandResult details = host.gpukill({"--details"});
    EXPECT_EQ(details.exit_code, 0) << details.err;
    EXPECT_NE(details.out.find("trainer"), std::string::npos) << details.out;

    CommandResult kill =
        host.gpukill({"--force", "--pid", std::to_string(job.pid()), "--dry-run", "--json"});
    EXPECT_EQ(kill.exit_code, 0) << kill.err;
    const auto doc = nlohmann::json::parse(kill.out);
    EXPECT_EQ(doc["dry_run"], true);
    EXPECT_EQ(doc["targets"][0]["pid"], job.pid());
    EXPECT_TRUE(process_alive(job.pid()));
}

TEST(FirstContact, VersionNamesTheSourceCommit) {
    CommandResult version = run_command({GPUKILL_BIN, "--version"});
    EXPECT_EQ(version.exit_code, 0);
    EXPECT_TRUE(std::regex_match(
        version.out,
        std::regex(
            R"(gpukill [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{12}(-modified)?|unknown)\)\n)")))
        << version.out;
}

}  // namespace
}  // namespace gpukill::testing
