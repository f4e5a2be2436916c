// `gpukill agent` through thousands of sample cycles (a 5 ms interval) with scrapes in
// between: the heap it holds (gpukill_agent_heap_bytes, the allocator's own count of
// bytes allocated and not freed, read at the same point of every cycle) grows by less
// than 256 KiB after warm-up, and its resident set by less than 4 MiB.
//
// The heap is the leak test. The resident set is not, under ASan: its allocator never
// gives pages back and grows each size class to a new high-water mark when a scrape
// meets a sample, so the resident set rose 0.2-1.1 MiB over 3,000 cycles with the heap
// flat (a release build's stays within 100 KiB over 24,000 cycles and thousands of
// scrapes). The loose resident bound still catches what the heap does not count:
// threads that never end, mappings that are never unmapped.
//
// ASan's quarantine is off (it holds freed memory on purpose), and 4 connection workers
// serve; each serves before the measurement, since a worker's first requests cost its
// stack and the sanitizer's per-thread state once. Rogue scans are off.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include <httplib.h>

#include "../integration/support.hpp"

namespace gpukill::testing {
namespace {

std::uint64_t resident_kib(pid_t pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6));
    }
    return 0;
}

// One family's value in an exposition (its one series, labelled with the host's name), 0
// when it is absent.
std::uint64_t metric_value(const std::string& body, const std::string& family) {
    const std::size_t at = body.find("\n" + family + "{");
    if (at == std::string::npos) return 0;
    const std::size_t value = body.find("} ", at);
    if (value == std::string::npos) return 0;
    return std::stoull(body.substr(value + 2));
}

// The samples taken and the heap held, from one scrape (one cycle's rendering).
struct AgentReading {
    std::uint64_t samples = 0;
    std::uint64_t heap_bytes = 0;
};

AgentReading read_agent(httplib::Client& client) {
    auto metrics = client.Get("/metrics");
    if (!metrics) return {};
    return {metric_value(metrics->body, "gpukill_agent_samples_total"),
            metric_value(metrics->body, "gpukill_agent_heap_bytes")};
}

TEST(AgentSoak, ResidentMemoryStaysFlatOverThousandsOfCycles) {
    SimulatedHost host;
    Workload a = host.run({"--gpu", "0", "--mem", "1G", "--workers", "2"});
    Workload b = host.run({"--gpu", "1", "--mem", "2G"});
    std::map<std::string, std::string> env = host.env();
    env["ASAN_OPTIONS"] = "quarantine_size_mb=0:detect_leaks=0";
    RunningCommand agent(
        {"/bin/sh", "-c", "exec \"$0\" \"$@\" 2>&1", GPUKILL_BIN, "agent", "--listen",
         "127.0.0.1:0", "--interval", "0.005", "--rogue-interval", "0", "--max-connections", "4"},
        env);
    int port = 0;
    while (auto line = agent.read_line(30)) {
        if (line->find("listening on ") == std::string::npos) continue;
        port = std::stoi(line->substr(line->rfind(':') + 1));
        break;
    }
    ASSERT_GT(port, 0);
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(10);

    const auto run_until = [&](std::uint64_t samples, std::chrono::seconds limit) {
        const auto deadline = std::chrono::steady_clock::now() + limit;
        AgentReading seen;
        while (std::chrono::steady_clock::now() < deadline) {
            seen = read_agent(client);
            (void)client.Get("/healthz");
            if (seen.samples >= samples) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polled, bounded
        }
        return seen;
    };
    // Every worker of the bounded pool serves once before the measurement: a thread's
    // first request costs its stack and the sanitizer's per-thread state (a few hundred
    // KiB each, once), which is warm-up, not growth.
    {
        std::vector<std::jthread> clients;
        for (int worker = 0; worker < 4; ++worker) {
            clients.emplace_back([port] {
                httplib::Client concurrent("127.0.0.1", port);
                concurrent.set_keep_alive(true);
                for (int request = 0; request < 50; ++request) (void)concurrent.Get("/metrics");
            });
        }
    }
    const AgentReading warm = run_until(200, std::chrono::seconds(30));
    ASSERT_GE(warm.samples, 200u) << "the agent sampled too slowly";
    ASSERT_GT(warm.heap_bytes, 0u) << "no gpukill_agent_heap_bytes in /metrics";
    const std::uint64_t rss_before = resident_kib(agent.pid());
    const AgentReading end = run_until(warm.samples + 3000, std::chrono::seconds(60));
    const std::uint64_t rss_after = resident_kib(agent.pid());
    const std::uint64_t cycles = end.samples - warm.samples;
    RecordProperty("cycles", std::to_string(cycles));
    RecordProperty("heap_before_bytes", std::to_string(warm.heap_bytes));
    RecordProperty("heap_after_bytes", std::to_string(end.heap_bytes));
    RecordProperty("rss_before_kib", std::to_string(rss_before));
    RecordProperty("rss_after_kib", std::to_string(rss_after));
    // 3000 cycles take about 15 s on a quiet 2-core machine; a loaded one gets fewer in
    // the minute allowed, and a thousand still shows a leak of 256 bytes a cycle.
    EXPECT_GE(cycles, 1000u) << "too few cycles to judge";
    EXPECT_LT(end.heap_bytes, warm.heap_bytes + 256 * 1024)
        << "the heap grew from " << warm.heap_bytes << " to " << end.heap_bytes << " bytes over "
        << cycles << " cycles";
    EXPECT_LT(rss_after, rss_before + 4 * 1024)
        << "resident memory grew from " << rss_before << " KiB to " << rss_after << " KiB over "
        << cycles << " cycles";
    agent.send_signal(SIGTERM);
    EXPECT_EQ(agent.wait(), 0);
}

}  // namespace
}  // namespace gpukill::testing
