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
#include "prometheus_support.hpp"

namespace gpukill::testing {
namespace {

using nlohmann::json;

TEST(AgentPrometheus, PrometheusScrapesWhatGpusimHolds) {
    SimulatedHost host;
    const std::string dir = std::filesystem::path(host.root()).parent_path().string() + "/prom";
    std::filesystem::create_directories(dir);
    Workload first = host.run({"--gpu", "0", "--mem", "1G", "--name", "trainer"});
    RunningAgent agent(host, {"--interval", "0.25", "--dcgm-names"});

    // The exposition parses, and promtool's only complaints are the ones the compatibility
    // asks for (exit 3 is lint only; a format error is 1): dcgm-exporter's camelCase label
    // name modelName, and its family name DCGM_FI_DEV_PCIE_REPLAY_COUNTER, which says
    // "counter". Its counters without _total are declared gauges: no _total complaint.
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
        const bool dcgm_name =
            line ==
            "DCGM_FI_DEV_PCIE_REPLAY_COUNTER metric name should not include type "
            "'counter'";
        EXPECT_TRUE(camel_case || dcgm_name) << line;
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
