// The local channel's protocol lines (engine/local_channel.hpp), a client that finds no
// agent to ask, and a snapshot client given broken and hostile answers: each is an error
// with its category, read within the bounds, never a snapshot.
#include "engine/local_channel.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "../integration/fake_local_agent.hpp"
#include "model/snapshot_json.hpp"

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

TEST(LocalChannelProtocol, ASnapshotIsAnsweredOnlyForTheRootsAndLibraryTheAgentReads) {
    const HostRoots roots{.procfs = "/sim/proc", .sysfs = "/sim/sys", .devfs = "/sim/dev"};
    const std::optional<std::string> library = "/sim/lib/libnvidia-ml.so.1";
    EXPECT_TRUE(
        check_local_snapshot_request(local_snapshot_request(roots, library), roots, library));
    EXPECT_TRUE(
        check_local_snapshot_request(local_snapshot_request({}, std::nullopt), {}, std::nullopt));
    const auto other =
        check_local_snapshot_request(local_snapshot_request({}, library), roots, library);
    ASSERT_FALSE(other);
    EXPECT_EQ(other.error().category, ErrorCategory::conflict);
    EXPECT_EQ(
        check_local_snapshot_request(local_snapshot_request(roots, std::nullopt), roots, library)
            .error()
            .category,
        ErrorCategory::conflict);
    for (const char* bad : {R"({"v":1,"request":"snapshot"})",
                            R"({"v":1,"request":"snapshot","roots":"/","nvml_library":null})",
                            R"({"v":1,"request":"snapshot","roots":{},"nvml_library":7})"}) {
        const auto refused = check_local_snapshot_request(nlohmann::json::parse(bad), roots, {});
        ASSERT_FALSE(refused) << bad;
        EXPECT_EQ(refused.error().category, ErrorCategory::invalid_input) << bad;
    }
}

class SnapshotClient : public ::testing::Test {
  protected:
    void SetUp() override {
        char name[] = "/tmp/gpukill-state-XXXXXX";
        ASSERT_NE(::mkdtemp(name), nullptr);
        state_ = name;
    }
    void TearDown() override { std::filesystem::remove_all(state_); }

    Result<std::optional<AgentSnapshot>> ask(int seconds = 5) {
        return ask_agent_snapshot(state_, HostRoots{}, std::nullopt,
                                  testing::FakeLocalAgent::in_seconds(seconds));
    }
    std::string socket() const { return local_channel_path(state_); }
    std::string state_;
};

Snapshot one_gpu_holder() {
    Snapshot snapshot;
    snapshot.host = "node1";
    snapshot.timestamp_unix_ms = 1'800'000'000'000;
    snapshot.gpus.push_back(Gpu{.index = 0, .reading = {}});
    SnapshotProcess trainer;
    trainer.info.pid = 4242;
    trainer.info.comm = "python3";
    trainer.info.start_time_ticks = 99;
    trainer.gpus.push_back(ProcessGpuUse{.gpu_index = 0, .seen_by = {false, true}});
    snapshot.processes.push_back(trainer);
    return snapshot;
}

TEST_F(SnapshotClient, NoAgentIsNothingToAsk) {
    auto asked = ask();
    ASSERT_TRUE(asked) << asked.error().what;
    EXPECT_FALSE(*asked);
}

TEST_F(SnapshotClient, TheAgentsDocumentIsReadBackWhole) {
    const std::string document = to_json(one_gpu_holder()).dump();
    testing::FakeLocalAgent agent(socket(), testing::FakeLocalAgent::replying(
                                                {local_snapshot_reply(document.size()), document}));
    auto asked = ask();
    ASSERT_TRUE(asked) << asked.error().what;
    ASSERT_TRUE(*asked);
    EXPECT_EQ((*asked)->agent_pid, agent.pid()) << "the kernel's word, not the reply's";
    EXPECT_EQ(to_json((*asked)->snapshot), to_json(one_gpu_holder()));
}

TEST_F(SnapshotClient, BrokenAnswersAreErrorsNeverASnapshot) {
    const std::string good = to_json(one_gpu_holder()).dump();
    const std::string not_a_snapshot = R"({"schema_version":2})";
    const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
    const struct {
        const char* what;
        std::vector<std::string> lines;
        ErrorCategory category;
    } cases[] = {
        {"not JSON", {"this is not json"}, ErrorCategory::internal},
        {"a reply naming no length", {local_ok()}, ErrorCategory::internal},
        {"a length over the bound",
         {local_ok({{"snapshot_bytes", 1ULL << 40}})},
         ErrorCategory::internal},
        {"a document longer than named", {local_snapshot_reply(10), good}, ErrorCategory::internal},
        {"a document shorter than named",
         {local_snapshot_reply(good.size() + 1), good},
         ErrorCategory::internal},
        {"another schema",
         {local_snapshot_reply(not_a_snapshot.size()), not_a_snapshot},
         ErrorCategory::internal},
        {"nesting without end", {local_snapshot_reply(deep.size()), deep}, ErrorCategory::internal},
        {"a refusal",
         {local_error(Error{"busy", 0, ErrorCategory::conflict})},
         ErrorCategory::conflict},
        {"a reply and nothing after it",
         {local_snapshot_reply(good.size())},
         ErrorCategory::unavailable},
    };
    for (const auto& broken : cases) {
        testing::FakeLocalAgent agent(socket(), testing::FakeLocalAgent::replying(broken.lines));
        auto asked = ask();
        ASSERT_FALSE(asked) << broken.what;
        EXPECT_EQ(asked.error().category, broken.category)
            << broken.what << ": " << asked.error().what;
        EXPECT_EQ(agent.connections(), 1) << broken.what;
    }
}

TEST_F(SnapshotClient, AnAgentThatSaysNothingIsGivenUpAtTheDeadline) {
    testing::FakeLocalAgent agent(socket(), testing::FakeLocalAgent::silent());
    const auto started = std::chrono::steady_clock::now();
    auto asked = ask(1);
    ASSERT_FALSE(asked);
    EXPECT_EQ(asked.error().category, ErrorCategory::unavailable) << asked.error().what;
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

TEST_F(SnapshotClient, ASocketOfAnotherUserIsNeverConnectedTo) {
    if (::geteuid() != 0) GTEST_SKIP() << "giving a socket to another user needs root";
    testing::FakeLocalAgent agent(socket(), testing::FakeLocalAgent::replying({"{}"}));
    ASSERT_EQ(::chown(socket().c_str(), 65534, 65534), 0);
    auto asked = ask();
    ASSERT_FALSE(asked);
    EXPECT_EQ(asked.error().category, ErrorCategory::refused) << asked.error().what;
    EXPECT_EQ(agent.connections(), 0);
}

}  // namespace
}  // namespace local_channel_test
}  // namespace gpukill::engine
