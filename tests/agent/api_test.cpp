// The agent's listen addresses and its error documents, as pure functions.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "agent/api.hpp"
#include "agent/http_server.hpp"

namespace gpukill::agent {
namespace {

TEST(AgentListen, ParsesHostPortAndBracketedIpv6) {
    auto v4 = parse_listen_address("127.0.0.1:9402");
    ASSERT_TRUE(v4);
    EXPECT_EQ(v4->host, "127.0.0.1");
    EXPECT_EQ(v4->port, 9402);
    auto v6 = parse_listen_address("[::1]:0");
    ASSERT_TRUE(v6);
    EXPECT_EQ(v6->host, "::1");
    EXPECT_EQ(v6->port, 0);
    auto any = parse_listen_address(kDefaultListen);
    ASSERT_TRUE(any);
    for (const char* bad : {"", "9402", "localhost", ":9402", "::1:80", "[::1]80", "h:65536",
                            "h:-1", "h:80x", "[::1]:"}) {
        EXPECT_FALSE(parse_listen_address(bad)) << bad;
    }
}

TEST(AgentApi, ErrorCategoriesMapToStatusCodesWithAOneLineBody) {
    EXPECT_EQ(http_status_for(ErrorCategory::invalid_input), 400);
    EXPECT_EQ(http_status_for(ErrorCategory::not_found), 404);
    EXPECT_EQ(http_status_for(ErrorCategory::conflict), 409);
    EXPECT_EQ(http_status_for(ErrorCategory::refused), 422);
    EXPECT_EQ(http_status_for(ErrorCategory::permission), 403);
    EXPECT_EQ(http_status_for(ErrorCategory::unavailable), 503);
    EXPECT_EQ(http_status_for(ErrorCategory::unsupported), 501);
    EXPECT_EQ(http_status_for(ErrorCategory::internal), 500);

    const ApiResponse response =
        error_response(Error{"plan changed\nsince", 0, ErrorCategory::conflict});
    EXPECT_EQ(response.status, 409);
    EXPECT_EQ(response.body.find('\n'), response.body.size() - 1) << "one line";
    const auto document = nlohmann::json::parse(response.body);
    EXPECT_EQ(document["schema_version"], 1);
    EXPECT_EQ(document["error"]["category"], "conflict");
    EXPECT_EQ(document["error"]["message"], "plan changed since");
}

TEST(AgentApi, KillAndResetNeedTheActScopeAndTheRestRead) {
    for (const Endpoint& endpoint : api_endpoints()) {
        const std::string path = endpoint.path;
        const bool acts = path.rfind("/v1/kill/", 0) == 0 || path.rfind("/v1/reset/", 0) == 0;
        EXPECT_EQ(endpoint.act, acts) << path;
        // A read is a GET, but for guard test, whose policy is a document in the body.
        const bool body = acts || path == "/v1/guard/test";
        EXPECT_EQ(std::string(endpoint.method), body ? "POST" : "GET") << path;
    }
}

}  // namespace
}  // namespace gpukill::agent
