// What a fleet command asks each host, built from a real command line through the real
// parser: the request's options over SSH and its JSON or query string to an agent, both
// written from the request's one table. The fleet's own options, the local rendering
// options and this host's roots never travel; every selector does.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <CLI/CLI.hpp>

#include "cli/command_line.hpp"
#include "cli/fleet_command.hpp"

namespace gpukill::cli {
namespace {

using Args = std::vector<std::string>;

// Parses `words` (after "gpukill") exactly as the program does.
void parse(CommandLine& cl, Args words) {
    words.insert(words.begin(), "gpukill");
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(word.data());
    cl.app->parse(static_cast<int>(argv.size()), argv.data());
}

TEST(FleetRequest, AKillCarriesEverySelectorAndNothingOfTheFleets) {
    CommandLine cl;
    parse(cl, {"kill",         "--hosts",
               "n[1-3]",       "--filter",
               "python",       "-x",
               "n2",           "--fanout=8",
               "--gather",     "--batch",
               "-ojson",       "--wide",
               "--ssh-option", "Port=22",
               "--image",      "^nvcr",
               "--not-image",  "^docker",
               "--slurm-job",  "42",
               "--user",       "ann",
               "--min-memory", "4G",
               "--procfs",     "/elsewhere/proc",
               "--force"});
    auto request = fleet_request(Command::kill, cl);
    ASSERT_TRUE(request) << request.error().what;
    EXPECT_EQ(request->call.arguments,
              (Args{"kill", "--filter", "python", "--user", "ann", "--slurm-job", "42", "--image",
                    "^nvcr", "--not-image", "^docker", "--min-memory", "4294967296", "--batch",
                    "--force", "--actor", "fleet", "--dry-run", "--json"}));
    EXPECT_EQ(request->call.http_method, "POST");
    EXPECT_EQ(request->call.http_path, "/v1/kill/plan");
    EXPECT_EQ(request->call.http_body->dump(),
              R"({"filter":"python","user":"ann","slurm_job":"42","image":"^nvcr",)"
              R"("not_image":"^docker","min_memory_bytes":4294967296,"batch":true,"force":true})");
    ASSERT_TRUE(request->execute);
    const fleet::RemoteCall act = request->execute("0123456789abcdef");
    EXPECT_EQ(act.arguments.back(), "--json");
    EXPECT_EQ(act.arguments[act.arguments.size() - 3], "--plan-id");
    EXPECT_EQ((*act.http_body)["plan_id"], "0123456789abcdef");
    EXPECT_EQ((*act.http_body)["image"], "^nvcr");
    EXPECT_TRUE(act.acts);
}

TEST(FleetRequest, ADryRunPlansOnlyAndAListIsNarrowedOnEachHost) {
    CommandLine dry;
    parse(dry, {"kill", "--remote", "h", "--gpu", "1", "--orphaned", "--batch", "--dry-run"});
    auto planned = fleet_request(Command::kill, dry);
    ASSERT_TRUE(planned);
    EXPECT_FALSE(planned->execute) << "a dry run is the plan alone";

    CommandLine list;
    parse(list, {"--remote", "h", "--list", "--details", "--json", "--gpu", "1", "--not-image",
                 "^nvcr.io/ x&y"});
    auto listed = fleet_request(Command::list, list);
    ASSERT_TRUE(listed);
    EXPECT_EQ(listed->call.arguments,
              (Args{"list", "--gpu", "1", "--not-image", "^nvcr.io/ x&y", "--json"}));
    EXPECT_EQ(listed->call.http_path, "/v1/snapshot?gpu=1&not_image=%5Envcr.io%2F%20x%26y");
}

TEST(FleetRequest, GuardTestSendsThePolicyItReadHereToEveryHost) {
    const std::string path = ::testing::TempDir() + "/fleet-policy.yaml";
    std::ofstream(path) << "mode: enforce\nusers:\n  ann: {max_processes: 1}\n";
    CommandLine cl;
    parse(cl, {"guard", "test", "--hosts", "n1", "--policy", path});
    ASSERT_TRUE(guard_test_requested(cl.guard_cli));
    auto request = fleet_request(Command::guard, cl);
    ASSERT_TRUE(request) << request.error().what;
    EXPECT_EQ(request->call.arguments,
              (Args{"guard", "test", "--policy-text",
                    "mode: enforce\nusers:\n  ann: {max_processes: 1}\n", "--json"}));
    EXPECT_EQ(request->call.http_path, "/v1/guard/test");
    EXPECT_EQ((*request->call.http_body)["policy"],
              "mode: enforce\nusers:\n  ann: {max_processes: 1}\n");
    std::filesystem::remove(path);
}

TEST(FleetRequest, AuditAndCheckReadTheirOwnRequests) {
    CommandLine rogue;
    parse(rogue, {"audit", "--rogue", "--hosts", "n1", "--audit-hours", "6"});
    auto scan = fleet_request(Command::audit, rogue);
    ASSERT_TRUE(scan);
    EXPECT_EQ(scan->call.arguments, (Args{"audit", "--rogue", "--audit-hours", "6", "--json"}));
    EXPECT_EQ(scan->call.http_path, "/v1/rogue?hours=6");

    CommandLine mixed;
    parse(mixed, {"audit", "--rogue", "--hosts", "n1", "--audit-summary"});
    auto refused = fleet_request(Command::audit, mixed);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().what, "--audit-summary does not apply to audit --rogue");

    CommandLine check;
    parse(check, {"check", "--hosts", "n1", "--idle", "--no-rogue"});
    auto checked = fleet_request(Command::check, check);
    ASSERT_TRUE(checked);
    EXPECT_EQ(checked->call.arguments, (Args{"check", "--idle", "--no-rogue", "--json"}));
    EXPECT_EQ(checked->call.http_path, "/v1/check?idle=true&rogue=false");
}

}  // namespace
}  // namespace gpukill::cli
