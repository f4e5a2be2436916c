// The local channel's protocol lines (engine/local_channel.hpp), and a client that finds
// no agent to ask.
#include "engine/local_channel.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace gpukill::engine {
namespace local_channel_test {
namespace {

TEST(LocalChannelProtocol, ARequestIsAVersionedObjectNamingItself) {
    auto request = parse_local_request(R"({"v":1,"request":"hello"})");
    ASSERT_TRUE(request) << request.error().what;
    EXPECT_EQ(request->name, "hello");
    for (const char* bad :
         {"", "[]", "hello", R"({"request":"hello"})", R"({"v":2,"request":"hello"})",
          R"({"v":1,"request":7})", R"({"v":"1","request":"hello"})"}) {
        auto refused = parse_local_request(bad);
        ASSERT_FALSE(refused) << bad;
        EXPECT_EQ(refused.error().category, ErrorCategory::invalid_input) << bad;
    }
}

TEST(LocalChannelProtocol, DeepNestingIsRefusedBeforeParsing) {
    std::string deep = R"({"v":1,"request":"hello","x":)";
    for (int i = 0; i < 10000; ++i) deep += '[';
    auto refused = parse_local_request(deep);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().category, ErrorCategory::invalid_input);
    // Brackets inside a string are text, not nesting.
    EXPECT_TRUE(parse_local_request(R"({"v":1,"request":"hello","reason":"[[[[[[[[[[[["})"));
}

TEST(LocalChannelProtocol, RepliesCarryTheirFieldsOrTheErrorsCategory) {
    auto ok = parse_local_reply(local_ok({{"agent_pid", 42}}));
    ASSERT_TRUE(ok);
    EXPECT_EQ((*ok)["agent_pid"], 42);
    EXPECT_EQ((*ok)["v"], kLocalChannelVersion);
    auto refused = parse_local_reply(local_error(Error{"only root", 0, ErrorCategory::permission}));
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().category, ErrorCategory::permission);
    EXPECT_EQ(refused.error().what, "only root");
    EXPECT_FALSE(parse_local_reply("not json"));
}

TEST(LocalChannelClient, NoAgentServingTheStateDirectoryIsNothingToAsk) {
    char name[] = "/tmp/gpukill-state-XXXXXX";
    ASSERT_NE(::mkdtemp(name), nullptr);
    auto asked = AgentDriverRelease::ask(name, 5, "test");
    ASSERT_TRUE(asked) << asked.error().what;
    EXPECT_TRUE(*asked == nullptr);
    std::filesystem::remove_all(name);
}

}  // namespace
}  // namespace local_channel_test
}  // namespace gpukill::engine
