// What a hostile or broken host can send the fleet controller, and what becomes of it:
// that host's error in the report, never the end of the command (before these checks,
// each of these aborted it with nlohmann's type_error or overflowed its stack).
#include <gtest/gtest.h>

#include <string>

#include "fleet/agent_transport.hpp"
#include "fleet/fan_out.hpp"
#include "fleet/inventory.hpp"
#include "fleet/reply_document.hpp"
#include "fleet/ssh_transport.hpp"

namespace gpukill::fleet {
namespace {

std::string deep(std::size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
}

TEST(FleetHostileReply, BadlyTypedAgentAnswersAreThatHostsError) {
    for (const char* body :
         {R"({"schema_version":1,"preview":"yes","plan_id":"p"})",
          R"({"schema_version":1,"executed":1,"targets":[]})",
          R"({"schema_version":1,"exit_code":"0"})", R"({"schema_version":1,"exit_code":-5})",
          R"({"schema_version":1,"targets":[5]})",
          R"({"schema_version":1,"gpus":[{"released":"yes"}]})", R"([1,2,3])"}) {
        HostReply reply = agent_reply(200, body);
        EXPECT_EQ(reply.status, HostStatus::failed) << body;
        EXPECT_EQ(reply.exit_code, 1) << body;
        EXPECT_TRUE(reply.result.is_null()) << body;
        ASSERT_TRUE(reply.error) << body;
        EXPECT_NE(reply.error->find("malformed"), std::string::npos) << *reply.error;
    }
    HostReply error = agent_reply(409, R"({"error":{"message":5,"category":"conflict"}})");
    EXPECT_EQ(error.status, HostStatus::failed);
    EXPECT_EQ(*error.error, "HTTP 409");
    EXPECT_TRUE(error.result.is_null());
}

TEST(FleetHostileReply, DeepOrHugeAnswersAreRefusedUnbuilt) {
    HostReply nested = agent_reply(200, "{\"a\":" + deep(150000) + "}");
    EXPECT_EQ(nested.status, HostStatus::failed);
    EXPECT_NE(nested.error->find("nested deeper than"), std::string::npos) << *nested.error;
    HostReply over_ssh = reply_from_output(0, deep(150000), "");
    EXPECT_EQ(over_ssh.status, HostStatus::failed);
    EXPECT_NE(over_ssh.error->find("nested deeper than"), std::string::npos) << *over_ssh.error;
    HostReply error_ssh = reply_from_output(3, R"({"error":{"message":5}})", "gpukill: x\n");
    EXPECT_EQ(error_ssh.status, HostStatus::failed);
    EXPECT_EQ(error_ssh.exit_code, 3);
    EXPECT_NE(error_ssh.error->find("error.message is not a string"), std::string::npos);
    EXPECT_FALSE(read_reply_document(std::string(kMaxReplyDocumentBytes + 1, ' ') + "1"));
}

TEST(FleetHostileReply, AnExceptionOnOneHostIsThatHostsFailure) {
    auto replies = fan_out(3,
                           [](std::size_t i) -> HostReply {
                               if (i == 1) throw std::runtime_error("boom");
                               HostReply ok;
                               ok.status = HostStatus::ok;
                               return ok;
                           },
                           {.fanout = 2, .fail_fast = false, .progress = {}, .interrupted = {}});
    EXPECT_EQ(replies[0].status, HostStatus::ok);
    EXPECT_EQ(replies[1].status, HostStatus::failed);
    EXPECT_NE(replies[1].error->find("boom"), std::string::npos);
    EXPECT_EQ(replies[2].status, HostStatus::ok);
}

// 40 lines of nXX[1-99999] were 4 million hosts (580 MB) before anything was checked.
TEST(FleetInventoryBounds, TheTotalNumberOfHostsIsCapped) {
    // Counted line by line: the third line is never expanded (the integration test runs
    // the forty lines of the report through the command).
    const std::string text = "n[1-60000]\nm[1-60000]\no[1-99999]\n";
    auto hosts = parse_hosts_text(text, "hosts.txt");
    ASSERT_FALSE(hosts);
    EXPECT_EQ(hosts.error().category, ErrorCategory::invalid_input);
    EXPECT_EQ(hosts.error().what,
              "hosts.txt:2: more than 100000 hosts in all (the most one fleet command reaches)");
    auto spread = resolve_targets(
        {.remote = {}, .node_sets = {"a[1-60000]", "b[1-60000]"}, .files = {}, .exclusions = {}});
    ASSERT_FALSE(spread);
    EXPECT_NE(spread.error().what.find("more than 100000 hosts"), std::string::npos);
    EXPECT_TRUE(resolve_targets(
        {.remote = {}, .node_sets = {"a[1-100000]"}, .files = {}, .exclusions = {}}));
}

TEST(FleetInventoryBounds, HostNamesWithEscapeSequencesAreRefusedAndShownEscaped) {
    auto remote = resolve_targets(
        {.remote = {"\x1b]0;pwned\x07node1"}, .node_sets = {}, .files = {}, .exclusions = {}});
    ASSERT_FALSE(remote);
    EXPECT_EQ(remote.error().what.find('\x1b'), std::string::npos) << remote.error().what;
    EXPECT_NE(remote.error().what.find("\\x1b"), std::string::npos) << remote.error().what;
    auto file_sd = parse_hosts_text("[{\"targets\": [\"n1\\u001b[2J:9402\"]}]", "sd.json");
    ASSERT_FALSE(file_sd);
    EXPECT_EQ(file_sd.error().what.find('\x1b'), std::string::npos) << file_sd.error().what;
    auto node_set =
        resolve_targets({.remote = {}, .node_sets = {"n\x1b[2J"}, .files = {}, .exclusions = {}});
    ASSERT_FALSE(node_set);
    EXPECT_EQ(node_set.error().what.find('\x1b'), std::string::npos) << node_set.error().what;
    EXPECT_FALSE(parse_host_address("node 1"));
    EXPECT_TRUE(parse_host_address("node-1.example.com:22"));
}

TEST(FleetSsh, AcceptingNewKeysIntoAForgettingKnownHostsFileIsRefused) {
    for (const char* option :
         {"UserKnownHostsFile=/dev/null", "userknownhostsfile /dev/null",
          "UserKnownHostsFile=~/.ssh/a /dev/null", "GlobalKnownHostsFile=none"}) {
        SshOptions options;
        options.accept_new_host_keys = true;
        options.options = {option};
        auto opened = SshTransport::open(options);
        ASSERT_FALSE(opened) << option;
        EXPECT_EQ(opened.error().category, ErrorCategory::invalid_input);
        EXPECT_NE(opened.error().what.find("--accept-new-host-keys"), std::string::npos);
    }
    SshOptions strict;
    strict.options = {"UserKnownHostsFile=/dev/null"};  // every key refused: safe
    EXPECT_TRUE(SshTransport::open(strict));
    SshOptions own_file;
    own_file.accept_new_host_keys = true;
    own_file.options = {"UserKnownHostsFile=/tmp/fleet_known_hosts"};
    EXPECT_TRUE(SshTransport::open(own_file));
}

}  // namespace
}  // namespace gpukill::fleet
