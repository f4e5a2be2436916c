// What an unauthenticated peer can make `gpukill agent` hold: floods of body, headers
// and connections, and a client dripping a byte at a time, each from a real loopback
// socket, bounded in count and time. Before the listener was gpukill's own, a chunked
// body to /healthz took the agent from 17 MB to 408 MB, 40 MB of tiny headers left it at
// 513 MB, a 2 MB chunked kill plan was accepted although the limit is 64 KiB, a dripping
// client was never cut off, and 3,000 idle connections at 1024 descriptors made /healthz
// time out. Here each is answered (413, 431, 414, 408, 503) and the agent's peak
// resident set grows by less than kAgentFloodBoundKiB over all of them (docs/AGENT.md).
#include <sys/resource.h>

#include <gtest/gtest.h>

#include <thread>

#include "agent_support.hpp"
#include "hostile_peer.hpp"

namespace gpukill::testing {
namespace {

// The most the agent's peak resident set may grow under every flood below (ASan build,
// its quarantine off; docs/AGENT.md gives the figures measured).
constexpr std::uint64_t kAgentFloodBoundKiB = 32 * 1024;

void warm_up_agent(RunningAgent& agent) {
    httplib::Client client = agent.client();
    for (int i = 0; i < 20; ++i) {
        auto answer = client.Get("/healthz");
        ASSERT_TRUE(answer) << httplib::to_string(answer.error());
        ASSERT_EQ(answer->status, 200) << answer->body;
    }
}

TEST(AgentLimits, FloodsBeforeAndAfterAuthenticationAreRefusedInBoundedMemory) {
    SimulatedHost host;
    const std::string tokens = write_token_file(peer_test_dir(host, "secrets"));
    RunningAgent agent(host, {"--token-file", tokens, "--max-connections", "4"},
                       without_asan_quarantine());
    warm_up_agent(agent);
    const std::uint64_t before = memory_kib(agent.pid(), "VmHWM");
    const std::string host_line = "Host: 127.0.0.1\r\n";

    // A chunked body to an open endpoint, no token: 413 at the limit, the rest unread.
    const PeerAnswer chunked = flood_request(
        agent.port(),
        "POST /healthz HTTP/1.1\r\n" + host_line + "Transfer-Encoding: chunked\r\n\r\n",
        http_chunk(64 * 1024));
    EXPECT_EQ(status_of(chunked.text), 413) << chunked.text;
    EXPECT_TRUE(chunked.closed);

    // With an act token, a 2 MB chunked kill plan: 413 (AGENT.md: 64 KiB), not 200.
    PeerSocket act(connect_loopback(agent.port()));
    const std::string plan_head = "POST /v1/kill/plan HTTP/1.1\r\n" + host_line +
                                  "Authorization: Bearer " + kAdminSecret +
                                  "\r\nContent-Type: application/json\r\n"
                                  "Transfer-Encoding: chunked\r\n\r\n";
    std::string plan_body = http_chunk(1);
    plan_body.replace(plan_body.find('x'), 1, "{");
    ASSERT_TRUE(send_all(act.get(), plan_head + plan_body));
    for (int i = 0; i < 32 && send_all(act.get(), http_chunk(64 * 1024)); ++i) {
    }
    const PeerAnswer plan = read_answer(act.get(), 10);
    EXPECT_EQ(status_of(plan.text), 413) << plan.text;

    // Tiny headers without end: 431 after 64 of them.
    std::string headers;
    for (int i = 0; i < 8192; ++i) headers += "X-a: b\r\n";
    const PeerAnswer many =
        flood_request(agent.port(), "GET /healthz HTTP/1.1\r\n" + host_line, headers);
    EXPECT_EQ(status_of(many.text), 431) << many.text;
    EXPECT_TRUE(many.closed);

    // One header line that never ends, and one request line that never ends.
    const PeerAnswer line =
        flood_request(agent.port(), "GET /healthz HTTP/1.1\r\nX-a: ", std::string(64 * 1024, 'a'));
    EXPECT_EQ(status_of(line.text), 431) << line.text;
    const PeerAnswer target = flood_request(agent.port(), "GET /", std::string(64 * 1024, 'a'));
    EXPECT_EQ(status_of(target.text), 414) << target.text;

    // A body the agent is not told the length of is no body: what follows is refused as
    // a malformed next request, not read into memory.
    const PeerAnswer lengthless =
        flood_request(agent.port(),
                      "POST /v1/kill/plan HTTP/1.1\r\n" + host_line + "Authorization: Bearer " +
                          kAdminSecret + "\r\n\r\n",
                      std::string(64 * 1024, '{'));
    EXPECT_NE(lengthless.text.find("HTTP/1.1 400"), std::string::npos)
        << lengthless.text.substr(0, 300);

    // Without a token, a body's head is answered 401 before a byte of it is sent.
    PeerSocket unauthenticated(connect_loopback(agent.port()));
    ASSERT_TRUE(send_all(unauthenticated.get(), "POST /v1/kill/plan HTTP/1.1\r\n" + host_line +
                                                    "Content-Length: 60000\r\n\r\n"));
    EXPECT_EQ(status_of(read_answer(unauthenticated.get(), 5, "\r\n\r\n").text), 401);

    const std::uint64_t after = memory_kib(agent.pid(), "VmHWM");
    EXPECT_LT(after - before, kAgentFloodBoundKiB)
        << "peak resident set " << before << " -> " << after << " KiB";
    std::fprintf(stderr, "agent peak resident set over the floods: %llu -> %llu KiB\n",
                 static_cast<unsigned long long>(before), static_cast<unsigned long long>(after));
    httplib::Client client = agent.client();
    EXPECT_EQ(client.Get("/healthz")->status, 200);
}

// A client that reconnects as soon as it is answered holds one connection at a time:
// the listener must count a finished connection out before it takes the next (it once
// went on accepting while the workers' finished connections waited, and answered 503).
TEST(AgentLimits, AClientReconnectingAsFastAsItIsAnsweredIsNeverRefused) {
    SimulatedHost host;
    RunningAgent agent(host, {"--max-connections", "1"}, without_asan_quarantine());
    std::map<int, int> statuses;
    for (int i = 0; i < 1000; ++i) {
        PeerSocket socket(connect_loopback(agent.port()));
        ASSERT_TRUE(socket);
        ASSERT_TRUE(send_all(
            socket.get(), "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"));
        ++statuses[status_of(read_answer(socket.get(), 10, "\r\n\r\n").text)];
    }
    EXPECT_EQ(statuses[200], 1000) << "503: " << statuses[503] << ", none: " << statuses[0];
}

// One byte every 100 ms kept cpp-httplib's per-read timeout from ever expiring.
TEST(AgentLimits, AClientDrippingItsRequestIsCutOffWithinTheRequestTimeout) {
    SimulatedHost host;
    RunningAgent agent(host, {"--request-timeout", "1"});
    PeerSocket dripper(connect_loopback(agent.port()));
    ASSERT_TRUE(send_all(dripper.get(), "GET /healthz HTTP/1.1\r\n"));
    const auto start = PeerClock::now();
    std::string answer;
    bool closed = false;
    const std::string drip = "X-Drip: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n";
    for (std::size_t i = 0; !closed && PeerClock::now() - start < std::chrono::seconds(10); ++i) {
        if (!send_all(dripper.get(), std::string_view(&drip[i % drip.size()], 1), 1)) break;
        const PeerAnswer got = read_answer(dripper.get(), 0.1);
        answer += got.text;
        closed = got.closed;
    }
    const PeerAnswer rest = read_answer(dripper.get(), 3);
    answer += rest.text;
    const double seconds = std::chrono::duration<double>(PeerClock::now() - start).count();
    EXPECT_EQ(status_of(answer), 408) << answer;
    EXPECT_LT(seconds, 6) << "the drip was cut off only after " << seconds << " s";
}

// Connections over the cap are answered 503 and closed at once, whatever the process's
// descriptor limit; /healthz is answered (200 or 503) meanwhile, never left waiting.
TEST(AgentLimits, AConnectionFloodIsAnswered503AndHealthIsStillAnswered) {
    rlimit limit{};
    ::getrlimit(RLIMIT_NOFILE, &limit);
    constexpr std::size_t kFlood = 1500;
    if (limit.rlim_cur < kFlood + 64) {
        limit.rlim_cur = std::min<rlim_t>(limit.rlim_max, kFlood + 256);
        ::setrlimit(RLIMIT_NOFILE, &limit);
    }
    if (limit.rlim_cur < kFlood + 64)
        GTEST_SKIP() << "this test needs " << kFlood + 64 << " descriptors";

    SimulatedHost host;
    const std::string tokens = write_token_file(peer_test_dir(host, "secrets"));
    const std::map<std::string, std::string> env = without_asan_quarantine(host.env());
    // 256 descriptors: far fewer than the connections coming.
    RunningCommand process({"/bin/sh", "-c", "ulimit -n 256 && exec \"$0\" \"$@\" 2>&1",
                            GPUKILL_BIN, "agent", "--listen", "127.0.0.1:0", "--token-file", tokens,
                            "--max-connections", "4", "--request-timeout", "5"},
                           env);
    int port = 0;
    while (auto line = process.read_line(30)) {
        if (line->find("listening on ") == std::string::npos) continue;
        port = std::stoi(line->substr(line->rfind(':') + 1));
        break;
    }
    ASSERT_GT(port, 0);
    {
        PeerSocket warm(connect_loopback(port));
        ASSERT_TRUE(send_all(
            warm.get(), "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"));
        ASSERT_EQ(status_of(read_answer(warm.get(), 10).text), 200);
    }
    const std::uint64_t before = memory_kib(process.pid(), "VmHWM");

    std::vector<PeerSocket> flood;
    for (std::size_t i = 0; i < kFlood; ++i) {
        PeerSocket socket(connect_loopback(port));
        if (!socket) break;
        flood.push_back(std::move(socket));
    }
    EXPECT_EQ(flood.size(), kFlood);
    // The health check a kubelet makes meanwhile: an answer within 5 s (its default
    // probe timeout is 1 s; the margin is for a loaded ASan build).
    const auto asked = PeerClock::now();
    PeerSocket probe(connect_loopback(port));
    ASSERT_TRUE(probe);
    ASSERT_TRUE(send_all(probe.get(), "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
    const PeerAnswer health = read_answer(probe.get(), 10, "\r\n\r\n");
    const double waited = std::chrono::duration<double>(PeerClock::now() - asked).count();
    EXPECT_TRUE(status_of(health.text) == 200 || status_of(health.text) == 503) << health.text;
    EXPECT_LT(waited, 5) << "/healthz waited " << waited << " s";

    // Nearly every connection of the flood was told why it was refused.
    std::size_t refused = 0;
    for (const PeerSocket& socket : flood) {
        const PeerAnswer answer = read_answer(socket.get(), 0.05, "\r\n\r\n");
        refused += status_of(answer.text) == 503 ? 1 : 0;
    }
    EXPECT_GT(refused, kFlood * 9 / 10) << refused << " of " << kFlood << " answered 503";
    flood.clear();

    // And once they are gone, it serves again.
    const auto again_deadline = PeerClock::now() + std::chrono::seconds(10);
    int again = 0;
    while (again != 200 && PeerClock::now() < again_deadline) {
        PeerSocket socket(connect_loopback(port));
        send_all(socket.get(),
                 "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        again = status_of(read_answer(socket.get(), 5).text);
    }
    EXPECT_EQ(again, 200);
    const std::uint64_t after = memory_kib(process.pid(), "VmHWM");
    EXPECT_LT(after - before, kAgentFloodBoundKiB) << before << " -> " << after << " KiB";
    std::fprintf(stderr, "agent peak resident set over %zu connections: %llu -> %llu KiB\n", kFlood,
                 static_cast<unsigned long long>(before), static_cast<unsigned long long>(after));
    process.send_signal(SIGTERM);
    EXPECT_EQ(process.wait(), 0);
}

}  // namespace
}  // namespace gpukill::testing
