// What the transports make of what came back: versions, ssh's failures, the agent's
// answers and token files, the remote arguments, and the merged report.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "fleet/agent_transport.hpp"
#include "fleet/fan_out.hpp"
#include "fleet/fleet_report.hpp"
#include "fleet/ssh_transport.hpp"

namespace gpukill::fleet {
namespace {

using Args = std::vector<std::string>;

TEST(FleetTransport, VersionsCompareByNumbers) {
    EXPECT_TRUE(version_at_least("0.1.0", "0.1.0"));
    EXPECT_TRUE(version_at_least("0.10.0", "0.9.9"));
    EXPECT_TRUE(version_at_least("1.0", "0.1.0"));
    EXPECT_FALSE(version_at_least("0.0.9", "0.1.0"));
    EXPECT_FALSE(version_at_least("", "0.1.0"));
    EXPECT_EQ(parse_version_line("gpukill 0.1.0 (commit abc123)\n"), "0.1.0");
    EXPECT_EQ(parse_version_line("bash: gpukill: command not found"), "");
}

TEST(FleetTransport, SshFailuresSayWhatToDo) {
    EXPECT_NE(describe_ssh_failure("n1",
                                   "No ED25519 host key is known for [127.0.0.1]:2222 and "
                                   "you have requested strict checking.\r\nHost key "
                                   "verification failed.\r\n")
                  .find("not in known_hosts: refused"),
              std::string::npos);
    EXPECT_NE(describe_ssh_failure("n1", "@@@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @@@")
                  .find("has CHANGED: refused"),
              std::string::npos);
    EXPECT_EQ(describe_ssh_failure("n1",
                                   "ssh: connect to host 10.0.0.9 port 22: Connection "
                                   "refused\r\n"),
              "ssh to n1: ssh: connect to host 10.0.0.9 port 22: Connection refused");
}

TEST(FleetTransport, ArgumentsAreQuotedForTheRemoteShell) {
    EXPECT_EQ(shell_quote("--filter"), "--filter");
    EXPECT_EQ(shell_quote("py.*train"), "'py.*train'");
    EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
    EXPECT_EQ(shell_quote(""), "''");
    EXPECT_EQ(shell_quote("$(reboot)"), "'$(reboot)'");
}

TEST(FleetTransport, RemoteOutputBecomesAReply) {
    HostReply ok = reply_from_output(0, R"({"schema_version": 1, "gpus": []})", "");
    EXPECT_EQ(ok.status, HostStatus::ok);
    EXPECT_EQ(ok.result["schema_version"], 1);
    HostReply refused = reply_from_output(
        3, R"({"schema_version": 1, "error": {"message": "no GPU matches '9'", "exit_code": 3}})",
        "gpukill: no GPU matches '9'\n");
    EXPECT_EQ(refused.status, HostStatus::failed);
    EXPECT_EQ(refused.exit_code, 3);
    EXPECT_EQ(*refused.error, "no GPU matches '9'");
    HostReply garbage = reply_from_output(0, "not json", "");
    EXPECT_EQ(garbage.status, HostStatus::failed);
    EXPECT_EQ(garbage.exit_code, 1);
}

TEST(FleetAgent, AnswersMapToExitCodes) {
    HostReply listed = agent_reply(200, R"({"schema_version":1,"gpus":[]})");
    EXPECT_EQ(listed.status, HostStatus::ok);
    EXPECT_EQ(listed.exit_code, 0);
    EXPECT_EQ(agent_reply(200, R"({"schema_version":1,"exit_code":6,"targets":[]})").exit_code, 6);
    EXPECT_EQ(agent_reply(200, R"({"schema_version":1,"verdict":"problem"})").exit_code, 1);
    EXPECT_EQ(agent_reply(200, R"({"schema_version":1,"verdict":"unknown"})").exit_code, 2);
    EXPECT_EQ(agent_reply(200, R"({"schema_version":1,"findings":[{}]})").exit_code, 9);
    HostReply conflict = agent_reply(
        409,
        R"({"schema_version":1,"error":{"category":"conflict","message":"the plan changed"}})");
    EXPECT_EQ(conflict.status, HostStatus::failed);
    EXPECT_EQ(conflict.exit_code, 1);
    EXPECT_EQ(*conflict.error, "the plan changed");
    EXPECT_EQ(agent_reply(400, R"({"error":{"category":"invalid_input","message":"x"}})").exit_code,
              3);
    EXPECT_EQ(agent_reply(401, "").exit_code, 4);
    EXPECT_NE(agent_reply(401, "").error->find("refused the token"), std::string::npos);
    EXPECT_EQ(agent_reply(501, R"({"error":{"category":"unsupported","message":"x"}})").exit_code,
              5);
    EXPECT_EQ(agent_reply(500, "<html>").exit_code, 1);
}

TEST(FleetAgent, UrlsAndPlainHttpOnlyToLoopback) {
    AgentOptions options;
    EXPECT_EQ(*agent_base_url("node01", options), "https://node01:9402");
    EXPECT_EQ(*agent_base_url("node01:8443", options), "https://node01:8443");
    EXPECT_EQ(*agent_base_url("[fd00::1]:8443", options), "https://[fd00::1]:8443");
    options.scheme = "http";
    EXPECT_EQ(*agent_base_url("127.0.0.1:9402", options), "http://127.0.0.1:9402");
    auto remote = agent_base_url("10.0.0.2", options);
    ASSERT_FALSE(remote);
    EXPECT_EQ(remote.error().category, ErrorCategory::refused);
}

TEST(FleetAgent, TokenFilesReadableByOthersAreRefused) {
    const auto path =
        std::filesystem::temp_directory_path() / ("gpukill-token-" + std::to_string(::getpid()));
    std::ofstream(path) << "s3cret-token\n";
    ::chmod(path.c_str(), 0644);
    auto open_to_all = read_token_file(path);
    ASSERT_FALSE(open_to_all);
    EXPECT_EQ(open_to_all.error().category, ErrorCategory::permission);
    EXPECT_EQ(open_to_all.error().what.find("s3cret"), std::string::npos);
    ::chmod(path.c_str(), 0600);
    auto token = read_token_file(path);
    ASSERT_TRUE(token) << token.error().what;
    EXPECT_EQ(*token, "s3cret-token");
    std::filesystem::remove(path);
    EXPECT_FALSE(read_token_file(path));
}

TEST(FleetAgent, AnAgentTransportNeedsATokenFile) {
    auto opened = AgentTransport::open({});
    ASSERT_FALSE(opened);
    EXPECT_NE(opened.error().what.find("--token-file"), std::string::npos);
}

TEST(FleetFanOut, EveryHostAnswersAndFailFastStopsStartingHosts) {
    std::atomic<int> running{0}, most{0};
    auto replies = fan_out(20,
                           [&](std::size_t i) {
                               const int now = ++running;
                               int seen = most.load();
                               while (now > seen && !most.compare_exchange_weak(seen, now)) {
                               }
                               HostReply r;
                               r.status = HostStatus::ok;
                               r.exit_code = static_cast<int>(i % 2);
                               --running;
                               return r;
                           },
                           {.fanout = 4, .fail_fast = false, .progress = {}, .interrupted = {}});
    ASSERT_EQ(replies.size(), 20u);
    EXPECT_LE(most.load(), 4);
    EXPECT_EQ(replies[3].exit_code, 1);

    auto fast = fan_out(10,
                        [](std::size_t) {
                            HostReply r;
                            r.status = HostStatus::unreachable;
                            r.exit_code = kUnreachableExit;
                            return r;
                        },
                        {.fanout = 1, .fail_fast = true, .progress = {}, .interrupted = {}});
    EXPECT_EQ(fast[0].status, HostStatus::unreachable);
    EXPECT_EQ(fast[9].status, HostStatus::not_run);
}

TEST(FleetReport, GatherMergesIdenticalOutputUnderNodeRanges) {
    const std::string merged = render_sections(
        {{"n1", "clean\n"}, {"n2", "clean\n"}, {"n3", "problem\n"}, {"n4", "clean\n"}}, true);
    EXPECT_EQ(merged,
              "----------------\nn[1-2,4] (3)\n----------------\nclean\n"
              "----------------\nn3\n----------------\nproblem\n");
    EXPECT_EQ(render_sections({{"n1", "a\n"}}, false),
              "----------------\nn1\n----------------\na\n");
}

TEST(FleetReport, TheDocumentCarriesEveryHostsOwnResult) {
    FleetResult result;
    result.command = "list";
    result.transport = "ssh";
    HostReply ok;
    ok.status = HostStatus::ok;
    ok.result = {{"schema_version", 1}, {"gpus", nlohmann::ordered_json::array()}};
    HostReply down;
    down.status = HostStatus::unreachable;
    down.exit_code = kUnreachableExit;
    down.error = "ssh to n2: Connection refused";
    result.hosts = {{"n1", ok, false}, {"n2", down, false}};
    result.summary = summarise(result.hosts);
    result.exit_code = kUnreachableExit;
    const auto doc = fleet_json(result);
    EXPECT_EQ(doc["hosts"][0]["result"], ok.result);
    EXPECT_EQ(doc["hosts"][0]["ok"], true);
    EXPECT_EQ(doc["hosts"][1]["ok"], false);
    EXPECT_EQ(doc["hosts"][1]["status"], "unreachable");
    EXPECT_TRUE(doc["hosts"][1]["result"].is_null());
    EXPECT_EQ(doc["summary"]["unreachable"], 1);
    EXPECT_EQ(doc["exit_code"], kUnreachableExit);
    EXPECT_EQ(summary_text(result),
              "fleet list: 2 hosts: 1 succeeded, 0 failed, 1 unreachable (n2)\n");
}

}  // namespace
}  // namespace gpukill::fleet
