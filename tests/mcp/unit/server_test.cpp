// The protocol layer over a real Engine (no GPU backends, a temporary state directory):
// version negotiation, the session gate, tool listing with and without actions, and
// the engine's refusals coming back as tool errors.
#include "mcp/server.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace gpukill::mcp {
namespace {

class McpServerTest : public ::testing::Test {
  protected:
    void SetUp() override {
        std::string pattern =
            (std::filesystem::temp_directory_path() / "gpukill-mcp-XXXXXX").string();
        ASSERT_NE(mkdtemp(pattern.data()), nullptr);
        dir_ = pattern;
        engine::EngineConfig config;
        config.state_dir = dir_ + "/state";
        config.config_dir = dir_ + "/config";
        config.open_gpus = false;
        config.syslog = false;
        config.container_sockets = std::vector<std::string>{};
        auto opened = engine::Engine::open(std::move(config));
        ASSERT_TRUE(opened) << opened.error().what;
        engine_ = std::move(*opened);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    nlohmann::json call(Server& server, Session& session, const std::string& method,
                        nlohmann::json params = nlohmann::json::object()) {
        auto reply = server.handle(session, RpcRequest{++id_, method, std::move(params)});
        EXPECT_TRUE(reply.has_value());
        return reply.value_or(nlohmann::json());
    }
    Session initialized(Server& server, const std::string& version = "2025-06-18") {
        Session session;
        auto reply = call(server, session, "initialize",
                          {{"protocolVersion", version},
                           {"capabilities", nlohmann::json::object()},
                           {"clientInfo", {{"name", "unit test"}, {"version", "1"}}}});
        EXPECT_TRUE(session.initialized);
        return session;
    }
    nlohmann::json tool(Server& server, Session& session, const std::string& name,
                        nlohmann::json arguments) {
        return call(server, session, "tools/call", {{"name", name}, {"arguments", arguments}});
    }

    std::string dir_;
    std::unique_ptr<engine::Engine> engine_;
    int id_ = 0;
};

TEST_F(McpServerTest, NegotiatesTheProtocolVersion) {
    Server server(*engine_, {});
    for (const char* version : kProtocolVersions) {
        Session session;
        auto reply = call(server, session, "initialize",
                          {{"protocolVersion", version}, {"clientInfo", {{"name", "c"}}}});
        EXPECT_EQ(reply["result"]["protocolVersion"], version);
        EXPECT_TRUE(reply["result"]["capabilities"].contains("tools"));
        EXPECT_EQ(reply["result"]["serverInfo"]["name"], "gpukill");
    }
    Session future;
    auto reply = call(server, future, "initialize", {{"protocolVersion", "2099-01-01"}});
    EXPECT_EQ(reply["result"]["protocolVersion"], kProtocolVersions.front());
    Session bad;
    EXPECT_EQ(call(server, bad, "initialize", {})["error"]["code"], rpc_code::invalid_params);
}

TEST_F(McpServerTest, RequestsBeforeInitializeAreRefusedButPingIsAnswered) {
    Server server(*engine_, {});
    Session session;
    EXPECT_EQ(call(server, session, "tools/list")["error"]["code"], rpc_code::invalid_request);
    EXPECT_TRUE(call(server, session, "ping")["result"].is_object());
    Session ready = initialized(server);
    EXPECT_EQ(call(server, ready, "no/such")["error"]["code"], rpc_code::method_not_found);
    EXPECT_FALSE(server.handle(ready, RpcNotification{"notifications/initialized", nullptr}));
}

std::vector<std::string> listed_names(const nlohmann::json& reply) {
    std::vector<std::string> names;
    for (const auto& tool : reply["result"]["tools"]) names.push_back(tool["name"]);
    return names;
}

nlohmann::json stateless_params(nlohmann::json params = nlohmann::json::object(),
                                const std::string& version = kStatelessProtocolVersion) {
    params["_meta"] = {{kMetaProtocolVersion, version},
                       {kMetaClientCapabilities, nlohmann::json::object()},
                       {kMetaClientInfo, {{"name", "modern client"}, {"version", "2"}}}};
    return params;
}

TEST_F(McpServerTest, StatelessRequestsNeedNoInitializeAndCarryTheRevisionsFields) {
    Server server(*engine_, {.allow_actions = true, .server_version = "9.9"});
    Session transport;  // never initialised: the stateless revision has no handshake
    auto discovered = call(server, transport, "server/discover", stateless_params());
    const nlohmann::json& d = discovered["result"];
    EXPECT_EQ(d["supportedVersions"][0], kStatelessProtocolVersion) << discovered.dump();
    EXPECT_EQ(d["resultType"], "complete");
    EXPECT_TRUE(d["capabilities"].contains("tools"));
    EXPECT_FALSE(d["capabilities"].contains("logging")) << "setLevel is not in 2026-07-28";
    EXPECT_EQ(d["ttlMs"], 0);
    EXPECT_EQ(d["cacheScope"], "private");
    EXPECT_EQ(d["_meta"][kMetaServerInfo]["version"], "9.9");

    auto tools = call(server, transport, "tools/list", stateless_params());
    EXPECT_EQ(tools["result"]["resultType"], "complete");
    EXPECT_EQ(tools["result"]["cacheScope"], "private");
    EXPECT_FALSE(listed_names(tools).empty());
    auto listed =
        call(server, transport, "tools/call",
             stateless_params({{"name", "list_gpus"}, {"arguments", nlohmann::json::object()}}));
    EXPECT_EQ(listed["result"]["resultType"], "complete");
    EXPECT_FALSE(listed["result"]["isError"].get<bool>()) << listed.dump();
    EXPECT_FALSE(listed["result"].contains("ttlMs")) << "a tool call is not cacheable";
    // Nothing was initialised for the transport by any of it.
    EXPECT_FALSE(transport.initialized);

    // A resource that does not exist is invalid params naming its uri.
    auto missing =
        call(server, transport, "resources/read", stateless_params({{"uri", "gpukill://gpu/99"}}));
    EXPECT_EQ(missing["error"]["code"], rpc_code::invalid_params) << missing.dump();
    EXPECT_EQ(missing["error"]["data"]["uri"], "gpukill://gpu/99");
}

TEST_F(McpServerTest, StatelessRequestsWithAnotherVersionOrABadEnvelopeAreRefused) {
    Server server(*engine_, {});
    Session transport;
    auto future = call(server, transport, "tools/list",
                       stateless_params(nlohmann::json::object(), "2099-01-01"));
    EXPECT_EQ(future["error"]["code"], rpc_code::unsupported_protocol_version);
    EXPECT_EQ(future["error"]["data"]["requested"], "2099-01-01");
    EXPECT_EQ(future["error"]["data"]["supported"][0], kStatelessProtocolVersion);

    nlohmann::json no_capabilities = stateless_params();
    no_capabilities["_meta"].erase(kMetaClientCapabilities);
    EXPECT_EQ(call(server, transport, "tools/list", no_capabilities)["error"]["code"],
              rpc_code::invalid_params);
    // The handshake and the methods the revision removed do not exist in it.
    for (const char* removed : {"initialize", "ping", "logging/setLevel"}) {
        EXPECT_EQ(call(server, transport, removed, stateless_params())["error"]["code"],
                  rpc_code::method_not_found)
            << removed;
    }
    // Without an envelope the same transport is still a handshake-revision session.
    EXPECT_EQ(call(server, transport, "tools/list")["error"]["code"], rpc_code::invalid_request);
}

TEST(McpStatelessHeaders, McpNameValuesAreDecodedFromTheirBase64Form) {
    EXPECT_EQ(decode_mcp_header_value("list_gpus"), "list_gpus");
    EXPECT_EQ(decode_mcp_header_value("=?base64?IGxpc3Rf?="), " list_");
    EXPECT_EQ(decode_mcp_header_value("=?base64?w6k=?="), "\xC3\xA9");
    EXPECT_FALSE(decode_mcp_header_value("=?base64?*bad*?="));
    EXPECT_EQ(mcp_name_of("resources/read", {{"uri", "gpukill://snapshot"}}), "gpukill://snapshot");
    EXPECT_FALSE(mcp_name_of("tools/list", nlohmann::json::object()));
}

TEST_F(McpServerTest, ActionToolsExistOnlyWithAllowActions) {
    Server read_only(*engine_, {});
    Session session = initialized(read_only);
    const auto names = listed_names(call(read_only, session, "tools/list"));
    EXPECT_NE(std::find(names.begin(), names.end(), "list_gpus"), names.end());
    EXPECT_EQ(std::find(names.begin(), names.end(), "plan_kill"), names.end());
    for (const auto& tool : call(read_only, session, "tools/list")["result"]["tools"]) {
        EXPECT_TRUE(tool["annotations"]["readOnlyHint"].get<bool>()) << tool["name"];
        EXPECT_TRUE(tool.contains("inputSchema") && tool.contains("outputSchema"));
    }
    EXPECT_EQ(tool(read_only, session, "plan_kill", {{"pids", {42}}})["error"]["code"],
              rpc_code::invalid_params);

    Server acting(*engine_, ServerOptions{.allow_actions = true});
    Session acts = initialized(acting);
    const auto all = listed_names(call(acting, acts, "tools/list"));
    EXPECT_NE(std::find(all.begin(), all.end(), "plan_kill"), all.end());
    EXPECT_NE(std::find(all.begin(), all.end(), "execute_kill_plan"), all.end());
    acts.may_act = false;  // a read-only token
    const auto reading = listed_names(call(acting, acts, "tools/list"));
    EXPECT_EQ(std::find(reading.begin(), reading.end(), "plan_kill"), reading.end());
}

TEST_F(McpServerTest, TheEnginesRefusalsAreToolErrors) {
    Server server(*engine_, ServerOptions{.allow_actions = true});
    Session session = initialized(server);
    for (const nlohmann::json& pid :
         {nlohmann::json(4294967295LL), nlohmann::json(0), nlohmann::json(1), nlohmann::json("-1"),
          nlohmann::json(-1)}) {
        auto reply = tool(server, session, "plan_kill", {{"pids", {pid}}});
        ASSERT_TRUE(reply.contains("result")) << reply.dump();
        EXPECT_TRUE(reply["result"]["isError"].get<bool>()) << pid;
        EXPECT_FALSE(reply["result"].contains("structuredContent"));
    }
    auto unknown = tool(server, session, "plan_kill", {{"pids", {42}}, {"bogus", true}});
    EXPECT_TRUE(unknown["result"]["isError"].get<bool>());
    auto stale = tool(server, session, "execute_kill_plan", {{"plan_id", "0123456789abcdef"}});
    EXPECT_TRUE(stale["result"]["isError"].get<bool>());
    EXPECT_NE(stale["result"]["content"][0]["text"].get<std::string>().find("unknown or expired"),
              std::string::npos);
    auto reset = tool(server, session, "reset_gpu", {{"gpus", "0"}});
    EXPECT_TRUE(reset["result"]["isError"].get<bool>()) << "a reset needs its preview first";
}

TEST_F(McpServerTest, ReadToolsAnswerWithStructuredContent) {
    Server server(*engine_, {});
    Session session = initialized(server);
    auto gpus = tool(server, session, "list_gpus", nlohmann::json::object());
    EXPECT_FALSE(gpus["result"]["isError"].get<bool>());
    EXPECT_TRUE(gpus["result"]["structuredContent"]["gpus"].is_array());
    auto bad = tool(server, session, "list_processes", {{"filter", "("}});
    EXPECT_TRUE(bad["result"]["isError"].get<bool>());
    auto policy = tool(server, session, "guard_test", {{"policy", "mode: [unclosed"}});
    EXPECT_TRUE(policy["result"]["isError"].get<bool>());
    auto resources = call(server, session, "resources/list");
    EXPECT_EQ(resources["result"]["resources"][0]["uri"], "gpukill://snapshot");
    auto missing = call(server, session, "resources/read", {{"uri", "gpukill://nope"}});
    EXPECT_EQ(missing["error"]["code"], rpc_code::resource_not_found);
    auto prompt =
        call(server, session, "prompts/get", {{"name", "free_gpu"}, {"arguments", {{"gpu", "1"}}}});
    EXPECT_EQ(prompt["result"]["messages"][0]["role"], "user");
    EXPECT_EQ(call(server, session, "logging/setLevel", {{"level", "loud"}})["error"]["code"],
              rpc_code::invalid_params);
}

TEST(McpActorName, IsSanitisedAndBounded) {
    EXPECT_EQ(actor_name_for("Claude Desktop"), "mcp:Claude Desktop");
    EXPECT_EQ(actor_name_for(""), "mcp:unknown");
    EXPECT_EQ(actor_name_for("a\nb\x1b[31m"), "mcp:a_b__31m");
    EXPECT_EQ(actor_name_for(std::string(500, 'x')).size(), 4u + 64u);
}

}  // namespace
}  // namespace gpukill::mcp
