// What a peer can do to `gpukill mcp`: nest JSON 150,000 levels deep (a SIGSEGV over
// stdio, and the end of the HTTP server, before the bounded parser), hold slow
// connections (four of them silenced the HTTP server: its four workers waited on them),
// flood bodies and headers, and end another token's session. Real sockets, loopback,
// every loop bounded in count and time.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "agent_support.hpp"
#include "hostile_peer.hpp"

namespace gpukill::testing {
namespace {

constexpr std::uint64_t kMcpFloodBoundKiB = 32 * 1024;

const std::string kInitialize =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
    R"("capabilities":{},"clientInfo":{"name":"limits","version":"1"}}})";

std::string ping(int id) {
    return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"ping"})";
}

// A ping whose params nest `depth` arrays (under the 4 MiB message limit).
std::string deep_ping(std::size_t depth) {
    return R"({"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":)" + std::string(depth, '[') +
           std::string(depth, ']') + "}}";
}

class McpHttpServer {
  public:
    McpHttpServer(const SimulatedHost& host, const std::vector<std::string>& extra) {
        std::vector<std::string> argv = {"/bin/sh",   "-c",         "exec \"$0\" \"$@\" 2>&1",
                                         GPUKILL_BIN, "mcp",        "--http",
                                         "--listen",  "127.0.0.1:0"};
        argv.insert(argv.end(), extra.begin(), extra.end());
        process_ = std::make_unique<RunningCommand>(argv, without_asan_quarantine(host.env()));
        const std::string marker = "listening on http://127.0.0.1:";
        while (auto line = process_->read_line(30)) {
            const std::size_t at = line->find(marker);
            if (at == std::string::npos) continue;
            port_ = std::stoi(line->substr(at + marker.size()));
            return;
        }
        throw std::runtime_error("gpukill mcp --http did not start");
    }
    // SIGTERM, and 10 s to end; a server still busy then is killed (RunningCommand).
    ~McpHttpServer() {
        process_->send_signal(SIGTERM);
        const auto deadline = PeerClock::now() + std::chrono::seconds(10);
        while (process_alive(process_->pid()) && PeerClock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polled, bounded
        }
        if (!process_alive(process_->pid())) process_->wait();
    }
    int port() const { return port_; }
    pid_t pid() const { return process_->pid(); }
    bool alive() const { return process_alive(process_->pid()); }

    httplib::Result post(const std::string& body, const char* secret,
                         const std::string& session = "", double timeout = 20) const {
        httplib::Client client("127.0.0.1", port_);
        client.set_read_timeout(static_cast<time_t>(timeout));
        client.set_connection_timeout(5);
        httplib::Headers headers = {{"Accept", "application/json, text/event-stream"}};
        if (secret != nullptr) headers.emplace("Authorization", std::string("Bearer ") + secret);
        if (!session.empty()) headers.emplace("Mcp-Session-Id", session);
        return client.Post("/mcp", headers, body, "application/json");
    }

    // A session opened with `secret`; its id.
    std::string open_session(const char* secret) const {
        auto answer = post(kInitialize, secret);
        if (!answer || answer->status != 200) return "";
        return answer->get_header_value("Mcp-Session-Id");
    }

  private:
    std::unique_ptr<RunningCommand> process_;
    int port_ = 0;
};

std::string mcp_tokens(const SimulatedHost& host) {
    return write_token_file(peer_test_dir(host, "mcp-secrets"));
}

TEST(McpLimits, DeeplyNestedJsonOverStdioIsRefusedAndTheServerGoesOn) {
    SimulatedHost host;
    const std::string input = peer_test_dir(host, "stdio") + "/input.jsonl";
    std::ofstream(input) << deep_ping(150000) << "\n" << ping(2) << "\n";
    const CommandResult run = run_command(
        {"/bin/sh", "-c", "exec \"$0\" mcp < \"$1\"", GPUKILL_BIN, input}, host.env(), 60);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    const std::size_t newline = run.out.find('\n');
    ASSERT_NE(newline, std::string::npos) << run.out;
    const nlohmann::json refused = nlohmann::json::parse(run.out.substr(0, newline));
    EXPECT_EQ(refused["error"]["code"], -32600);
    EXPECT_NE(refused["error"]["message"].get<std::string>().find("nested deeper"),
              std::string::npos);
    const nlohmann::json answered = nlohmann::json::parse(run.out.substr(newline + 1));
    EXPECT_EQ(answered["id"], 2);
    EXPECT_TRUE(answered.contains("result")) << answered.dump();
}

TEST(McpLimits, DeeplyNestedJsonOverHttpIsRefusedAndTheServerGoesOn) {
    SimulatedHost host;
    McpHttpServer server(host, {"--token-file", mcp_tokens(host)});
    auto refused = server.post(deep_ping(150000), kViewerSecret);
    ASSERT_TRUE(refused) << httplib::to_string(refused.error());
    EXPECT_EQ(refused->status, 400);
    EXPECT_NE(refused->body.find("nested deeper"), std::string::npos) << refused->body;
    EXPECT_TRUE(server.alive());
    EXPECT_FALSE(server.open_session(kViewerSecret).empty());
}

// Eight peers each send part of a request and then a byte every 200 ms: the listener's
// event loop holds them, no worker waits on them, and authorised pings are answered.
TEST(McpLimits, SlowConnectionsDoNotSilenceTheServer) {
    SimulatedHost host;
    McpHttpServer server(host, {"--token-file", mcp_tokens(host)});
    std::vector<PeerSocket> slow;
    for (int i = 0; i < 8; ++i) {
        slow.emplace_back(connect_loopback(server.port()));
        ASSERT_TRUE(send_all(slow.back().get(), "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
    }
    // Stopped and joined when the test ends, however it ends.
    std::jthread dripper([&](std::stop_token stop) {
        for (int tick = 0; tick < 100 && !stop.stop_requested(); ++tick) {
            for (const PeerSocket& socket : slow) send_all(socket.get(), "X", 0.1);
            std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the drip's pace
        }
    });
    const std::string session = server.open_session(kViewerSecret);
    EXPECT_FALSE(session.empty());
    for (int i = 0; i < 5; ++i) {
        const auto start = PeerClock::now();
        auto answer = server.post(ping(10 + i), kViewerSecret, session, 5);
        const double seconds = std::chrono::duration<double>(PeerClock::now() - start).count();
        ASSERT_TRUE(answer) << "ping " << i << ": " << httplib::to_string(answer.error());
        EXPECT_EQ(answer->status, 200);
        EXPECT_LT(seconds, 3) << "ping " << i << " took " << seconds << " s";
    }
}

TEST(McpLimits, FloodsAreRefusedInBoundedMemory) {
    SimulatedHost host;
    McpHttpServer server(host, {"--token-file", mcp_tokens(host)});
    ASSERT_FALSE(server.open_session(kViewerSecret).empty());
    const std::uint64_t before = memory_kib(server.pid(), "VmHWM");
    const std::string head =
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";

    // No token: refused on the head, the body never read.
    const PeerAnswer anonymous = flood_request(
        server.port(), head + "Transfer-Encoding: chunked\r\n\r\n", http_chunk(64 * 1024));
    EXPECT_EQ(status_of(anonymous.text), 401) << anonymous.text;
    // A token, and a chunked body past 4 MiB: 413.
    const PeerAnswer chunked = flood_request(
        server.port(),
        head + "Authorization: Bearer " + kViewerSecret + "\r\nTransfer-Encoding: chunked\r\n\r\n",
        http_chunk(64 * 1024));
    EXPECT_EQ(status_of(chunked.text), 413) << chunked.text;
    // Headers without end.
    std::string headers;
    for (int i = 0; i < 8192; ++i) headers += "X-a: b\r\n";
    const PeerAnswer many = flood_request(server.port(), head, headers);
    EXPECT_EQ(status_of(many.text), 431) << many.text;

    const std::uint64_t after = memory_kib(server.pid(), "VmHWM");
    EXPECT_LT(after - before, kMcpFloodBoundKiB) << before << " -> " << after << " KiB";
    std::fprintf(stderr, "MCP server peak resident set over the floods: %llu -> %llu KiB\n",
                 static_cast<unsigned long long>(before), static_cast<unsigned long long>(after));
    EXPECT_FALSE(server.open_session(kViewerSecret).empty());
}

TEST(McpLimits, AConnectionFloodIsAnswered503AndPingsGoOnAfterIt) {
    SimulatedHost host;
    McpHttpServer server(host, {"--token-file", mcp_tokens(host)});
    const std::string session = server.open_session(kViewerSecret);
    std::vector<PeerSocket> flood;
    for (int i = 0; i < 300; ++i) {
        PeerSocket socket(connect_loopback(server.port()));
        if (!socket) break;
        flood.push_back(std::move(socket));
    }
    ASSERT_EQ(flood.size(), 300u);
    std::size_t refused = 0;
    for (const PeerSocket& socket : flood) {
        refused += status_of(read_answer(socket.get(), 0.05, "\r\n\r\n").text) == 503 ? 1 : 0;
    }
    EXPECT_GT(refused, 200u);
    flood.clear();
    const auto deadline = PeerClock::now() + std::chrono::seconds(10);
    int status = 0;
    while (status != 200 && PeerClock::now() < deadline) {
        auto answer = server.post(ping(3), kViewerSecret, session, 5);
        status = answer ? answer->status : 0;
    }
    EXPECT_EQ(status, 200);
}

// Decided: a session belongs to the token that opened it. Another token (here a read
// token that learnt the id) is told it does not exist, and cannot end it.
TEST(McpLimits, OnlyTheTokenThatOpenedASessionCanUseOrEndIt) {
    SimulatedHost host;
    McpHttpServer server(host, {"--token-file", mcp_tokens(host)});
    const std::string session = server.open_session(kAdminSecret);
    ASSERT_FALSE(session.empty());
    httplib::Client client("127.0.0.1", server.port());
    const auto ended = client.Delete(
        "/mcp",
        {{"Authorization", std::string("Bearer ") + kViewerSecret}, {"Mcp-Session-Id", session}});
    ASSERT_TRUE(ended);
    EXPECT_EQ(ended->status, 404);
    auto used = server.post(ping(4), kViewerSecret, session);
    ASSERT_TRUE(used);
    EXPECT_EQ(used->status, 404);
    auto owner = server.post(ping(5), kAdminSecret, session);
    ASSERT_TRUE(owner);
    EXPECT_EQ(owner->status, 200) << "the session is still there for its own token";
    const auto own_end = client.Delete(
        "/mcp",
        {{"Authorization", std::string("Bearer ") + kAdminSecret}, {"Mcp-Session-Id", session}});
    ASSERT_TRUE(own_end);
    EXPECT_EQ(own_end->status, 204);
}

}  // namespace
}  // namespace gpukill::testing
