// A real Prometheus (Debian's) scrapes `gpukill agent` every second while gpusim
// workloads start, leak and die; the values Prometheus stored are checked against what
// gpusim holds. promtool checks the exposition itself.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "agent_support.hpp"

namespace gpukill::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

int free_loopback_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
    socklen_t length = sizeof address;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    ::close(fd);
    return ntohs(address.sin_port);
}

class Prometheus {
  public:
    Prometheus(const std::string& dir, int agent_port) : port_(free_loopback_port()) {
        const std::string config = dir + "/prometheus.yml";
        std::ofstream(config) << "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                              << "scrape_configs:\n  - job_name: gpukill\n"
                              << "    static_configs:\n      - targets: ['127.0.0.1:" << agent_port
                              << "']\n";
        const std::string command =
            std::string("exec " GPUKILL_PROMETHEUS_BIN " --config.file='") + config +
            "' --storage.tsdb.path='" + dir +
            "/tsdb' --web.listen-address=127.0.0.1:" + std::to_string(port_) + " >'" + dir +
            "/prometheus.log' 2>&1";
        process_ =
            std::make_unique<RunningCommand>(std::vector<std::string>{"/bin/sh", "-c", command});
        httplib::Client client("127.0.0.1", port_);
        const auto deadline = Clock::now() + std::chrono::seconds(20);
        while (Clock::now() < deadline) {
            auto ready = client.Get("/-/ready");
            if (ready && ready->status == 200) return;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));  // polled, bounded
        }
        throw std::runtime_error("prometheus did not become ready");
    }

    // The value of an instant query's single series; empty while it has none.
    std::optional<double> query(const std::string& promql) const {
        httplib::Client client("127.0.0.1", port_);
        auto answer =
            client.Get("/api/v1/query", httplib::Params{{"query", promql}}, httplib::Headers{});
        if (!answer || answer->status != 200) return std::nullopt;
        const json body = json::parse(answer->body, nullptr, false);
        const json& result = body["data"]["result"];
        if (!result.is_array() || result.size() != 1) return std::nullopt;
        return std::stod(result[0]["value"][1].get<std::string>());
    }

    // Waits (bounded) until `promql` gives a value `accept` takes; the last value seen.
    template <class Accept>
    std::optional<double> wait_until(const std::string& promql, Accept accept,
                                     double timeout_seconds = 12) const {
        std::optional<double> seen;
        const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
        while (Clock::now() < deadline) {
            seen = query(promql);
            if (seen && accept(*seen)) return seen;
            std::this_thread::sleep_for(std::chrono::milliseconds(200));  // polled, bounded
        }
        return seen;
    }

    // Waits (bounded) until `promql` gives `expected`; the last value seen.
    std::optional<double> wait_for(const std::string& promql, double expected,
                                   double timeout_seconds = 8) const {
        return wait_until(
            promql, [expected](double v) { return v == expected; }, timeout_seconds);
    }

  private:
    int port_;
    std::unique_ptr<RunningCommand> process_;
};

TEST(AgentPrometheus, PrometheusScrapesWhatGpusimHolds) {
    SimulatedHost host;
    const std::string dir = std::filesystem::path(host.root()).parent_path().string() + "/prom";
    std::filesystem::create_directories(dir);
    Workload first = host.run({"--gpu", "0", "--mem", "1G", "--name", "trainer"});
    RunningAgent agent(host, {"--interval", "0.25", "--dcgm-names"});

    // The exposition parses, and promtool's only complaints are the ones the compatibility
    // asks for: dcgm-exporter's camelCase label name modelName, and its energy counter's
    // name without _total (exit 3 is lint only; a format error is 1).
    const std::string metrics = agent.client().Get("/metrics")->body;
    std::ofstream(dir + "/metrics.txt") << metrics;
    CommandResult lint = run_command(
        {"/bin/sh", "-c",
         std::string(GPUKILL_PROMTOOL_BIN " check metrics < '") + dir + "/metrics.txt' 2>&1"});
    EXPECT_TRUE(lint.exit_code == 0 || lint.exit_code == 3) << lint.out << lint.err;
    std::istringstream complaints(lint.out);
    for (std::string line; std::getline(complaints, line);) {
        const bool camel_case =
            line.find("label names should be written in 'snake_case' not 'camelCase'") !=
            std::string::npos;
        const bool dcgm_energy =
            line.starts_with("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter metrics should have");
        EXPECT_TRUE(camel_case || dcgm_energy) << line;
    }

    Prometheus prometheus(dir, agent.port());
    const std::string pid = std::to_string(first.pid());
    EXPECT_EQ(prometheus.wait_for("gpukill_process_gpu_memory_bytes{pid=\"" + pid + "\"}", 1 << 30),
              double(1 << 30));
    EXPECT_EQ(prometheus.wait_for("DCGM_FI_DEV_FB_USED{gpu=\"0\"}", 1024), 1024.0);
    // The energy counter grows at gpusim's idle draw, 70 W in its default scenario. Once
    // four scrapes are stored, the slope through them (deriv: per second, not divided by
    // the range as rate() is while the range is not yet full) is within 20%: the agent
    // samples every 0.25 s and Prometheus stamps its scrape time. A unit mistake (mJ for
    // J) would be 1000x.
    ASSERT_TRUE(prometheus.wait_until(
        "count_over_time(DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\"}[8s])",
        [](double n) { return n >= 4; }));
    const std::optional<double> watts =
        prometheus.query("deriv(gpukill_gpu_energy_joules_total{gpu=\"0\"}[8s])");
    ASSERT_TRUE(watts);
    EXPECT_NEAR(*watts, 70.0, 14.0);
    const std::optional<double> dcgm_watts =
        prometheus.query("deriv(DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\"}[8s]) / 1000");
    ASSERT_TRUE(dcgm_watts);
    EXPECT_NEAR(*dcgm_watts, 70.0, 14.0);

    // A second workload starts, GPU 1 leaks, the first dies.
    Workload second = host.run({"--gpu", "1", "--mem", "2G", "--name", "eval"});
    EXPECT_EQ(prometheus.wait_for("gpukill_gpu_processes{gpu=\"1\"}", 1), 1.0);
    host.leak(1, "512M");
    EXPECT_EQ(prometheus.wait_for("gpukill_gpu_memory_unaccounted_bytes{gpu=\"1\"}", 512 << 20),
              double(512 << 20));
    first.kill_all();
    EXPECT_EQ(prometheus.wait_for("gpukill_gpu_processes{gpu=\"0\"}", 0), 0.0);
    EXPECT_EQ(prometheus.wait_for("gpukill_gpu_memory_used_bytes{gpu=\"0\"}", 0), 0.0);
    EXPECT_EQ(prometheus.wait_for("up{job=\"gpukill\"}", 1), 1.0);
}

}  // namespace
}  // namespace gpukill::testing
