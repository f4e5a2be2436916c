// deploy/prometheus and deploy/grafana against what the agent really emits, through a
// real Prometheus (Debian's): it scrapes `gpukill agent --dcgm-names` on a simulated host
// where a miner runs, a trainer's orphaned workers hold a GPU, the guard ends a process
// and memory leaks; it evaluates the SHIPPED alert rules (only their `for:` hold times
// shortened, so the test does not wait minutes), and every firing alert's rendered text
// must name the host and the GPU. Then every query of the shipped dashboard and of
// NVIDIA's dashboard 12239 (tests/fixtures/grafana, its PromQL only) must return series
// for the host chosen in its picker.
#include <unistd.h>

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "agent_support.hpp"
#include "prometheus_support.hpp"
#include "rogue_support.hpp"

namespace gpukill::testing {
namespace {

using nlohmann::json;

const std::string kDeploy = GPUKILL_DEPLOY_DIR;
const std::string kFixtures = GPUKILL_FIXTURES_DIR;

std::string this_host() {
    char name[256] = {};
    ::gethostname(name, sizeof name - 1);
    return name;
}

// A value as Grafana puts it into a regex matcher (Hostname=~"$Hostname"): each regex
// metacharacter escaped, the backslash doubled for PromQL's double-quoted string (a
// format string takes a backslash literally: two here give two).
std::string regex_literal(const std::string& text) {
    static const std::regex meta(R"([.^$|()\[\]{}*+?\\])");
    return std::regex_replace(text, meta, R"(\\$&)");
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) {
        text.replace(at, from.size(), to);
    }
    return text;
}

// The shipped rules with every `for:` hold time set to 2s; expressions, labels and
// annotations as shipped.
std::string rules_with_short_holds(const std::string& dir) {
    std::ifstream in(kDeploy + "/prometheus/gpukill-alerts.yaml");
    std::stringstream text;
    text << in.rdbuf();
    const std::string path = dir + "/gpukill-alerts.yaml";
    std::ofstream(path) << std::regex_replace(text.str(), std::regex(R"(for: [0-9]+[smh])"),
                                              "for: 2s");
    return path;
}

// Every query of a Grafana dashboard: panel targets' expr and the template variables'.
void collect_queries(const json& node, std::vector<std::string>& out) {
    if (node.is_object()) {
        if (node.contains("expr") && node["expr"].is_string()) out.push_back(node["expr"]);
        if (node.contains("templating")) {
            for (const json& variable : node["templating"]["list"]) {
                if (variable.value("type", "") != "query") continue;
                const json& query = variable["query"];
                out.push_back(query.is_string() ? query.get<std::string>()
                                                : query["query"].get<std::string>());
            }
        }
        for (const auto& [key, value] : node.items()) {
            if (key != "templating") collect_queries(value, out);
        }
    } else if (node.is_array()) {
        for (const json& item : node) collect_queries(item, out);
    }
}

// label_values(METRIC, LABEL) as Grafana asks Prometheus for it, else empty.
std::optional<std::pair<std::string, std::string>> label_values_call(const std::string& query) {
    static const std::regex call(R"(^label_values\((.+),\s*([A-Za-z_]+)\)$)");
    std::smatch match;
    if (!std::regex_match(query, match, call)) return std::nullopt;
    return std::make_pair(match[1].str(), match[2].str());
}

const json* firing(const json& alerts, const std::string& name, const std::string& gpu = "") {
    for (const json& alert : alerts) {
        if (alert["labels"].value("alertname", "") != name) continue;
        if (alert.value("state", "") != "firing") continue;
        if (!gpu.empty() && alert["labels"].value("gpu", "") != gpu) continue;
        return &alert;
    }
    return nullptr;
}

TEST(DeployObservability, ShippedAlertsFireWithTheirTextAndBothDashboardsShowTheHost) {
    SimulatedHost host;
    const std::string base = std::filesystem::path(host.root()).parent_path().string();
    const std::string prom_dir = base + "/prom", config = base + "/etc";
    std::filesystem::create_directories(prom_dir);
    std::filesystem::create_directories(config);
    const std::string hostname = this_host();

    // GPU 0: a miner (a renamed gpusim with a stratum URL, connected to a local "pool")
    // and a trainer's workers orphaned by kill -9 (holders the driver does not list).
    ScratchDir tmp("/tmp");
    LocalListener pool;
    write_text(config + "/rogue.yaml", "pool_ports: [" + std::to_string(pool.port()) + "]\n");
    Workload miner = host.run_program(
        copy_of_gpusim(tmp, "xmrig"),
        {"--gpu", "0", "--mem", "256M", "--util", "100", "--connect", pool.endpoint(), "--", "-o",
         "stratum+tcp://" + pool.endpoint(), "--donate-level", "1"});
    Workload trainer = host.run({"--gpu", "0", "--mem", "512M", "--workers", "2"});
    trainer.kill_parent();
    // GPU 1: root may not use it; the process started there below is ended by the guard.
    write_text(config + "/guard.yaml",
               "version: 1\nmode: enforce\ncheck_interval: 1s\nterminate_timeout: 2s\n"
               "users:\n  root:\n    blocked_gpus: [1]\n    action: terminate\n"
               "    grace_period: 0s\n");

    RunningAgent agent(host, {"--config-dir", config, "--policy", config + "/guard.yaml",
                              "--interval", "0.25", "--rogue-interval", "1", "--dcgm-names"});
    Prometheus prometheus(prom_dir, agent.port(), {rules_with_short_holds(prom_dir)});
    // Prometheus sees the guard's counters at 0 first (the agent declares them so), then
    // the guard ends the process: increase() counts it.
    const std::string ended = "sum(gpukill_guard_actions_total{outcome=~\"terminated|killed\"})";
    ASSERT_EQ(prometheus.wait_for(ended, 0, 20), 0.0);
    Workload victim = host.run({"--gpu", "1", "--mem", "256M", "--name", "victim"});
    ASSERT_TRUE(prometheus.wait_until(
        ended, [](double n) { return n >= 1; }, 30))
        << "the guard did not end the process on GPU 1";
    ASSERT_FALSE(process_alive(victim.pid()));
    host.leak(1, "2G");  // memory nobody holds: more than the alert's 1 GiB

    // The alerts whose conditions the host meets fire, each naming the host and the GPU.
    // Every shipped rule: GPU 1 is soft-locked and holds 2 GiB nobody accounts for, GPU 0
    // has hidden holders and a miner, and the guard ended a process.
    const std::set<std::string> required = {"GpuSoftLocked", "GpuMemoryNobodyHolds",
                                            "GpuHiddenHolders", "GpuRogueProcess",
                                            "GpukillGuardEndedProcesses"};
    json alerts;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
        alerts = prometheus.alerts();
        bool all = true;
        for (const std::string& name : required) all &= firing(alerts, name) != nullptr;
        if (all) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(500));  // polled, bounded
    }
    for (const std::string& name : required) {
        EXPECT_NE(firing(alerts, name), nullptr) << name << " never fired:\n" << alerts.dump(1);
    }
    for (const json& alert : alerts) {
        const std::string summary = alert["annotations"].value("summary", "");
        const std::string description = alert["annotations"].value("description", "");
        EXPECT_NE(summary.find(" on " + hostname), std::string::npos) << summary;
        EXPECT_EQ(summary.find("  "), std::string::npos) << "a label is missing: " << summary;
        EXPECT_EQ(description.find("  "), std::string::npos) << description;
        EXPECT_EQ(alert["labels"].value("Hostname", ""), hostname) << alert.dump();
    }
    if (const json* nobody = firing(alerts, "GpuMemoryNobodyHolds", "1")) {
        EXPECT_EQ((*nobody)["annotations"]["summary"],
                  "2GiB of GPU 1 on " + hostname + " is used by no listed process");
    } else {
        ADD_FAILURE() << "no GpuMemoryNobodyHolds for GPU 1:\n" << alerts.dump(1);
    }
    if (const json* hidden = firing(alerts, "GpuHiddenHolders", "0")) {
        const std::string summary = (*hidden)["annotations"]["summary"];
        const std::string tail = " hidden holder(s) of GPU 0 on " + hostname + " for 10 minutes";
        EXPECT_TRUE(summary.ends_with(tail) && summary.size() > tail.size() &&
                    std::isdigit(static_cast<unsigned char>(summary[0])))
            << summary;
        EXPECT_EQ((*hidden)["annotations"]["description"],
                  "gpukill kill --gpu 0 --unlisted --batch ends them, with proof the memory came "
                  "back.");
    }
    if (const json* rogue = firing(alerts, "GpuRogueProcess")) {
        EXPECT_EQ((*rogue)["annotations"]["summary"],
                  "A likely miner or rogue process on " + hostname);
    }
    if (const json* guard = firing(alerts, "GpukillGuardEndedProcesses")) {
        const std::string summary = (*guard)["annotations"]["summary"];
        EXPECT_TRUE(summary.starts_with("The gpukill guard on " + hostname + " ended ")) << summary;
    }
    if (const json* locked = firing(alerts, "GpuSoftLocked", "1")) {
        EXPECT_EQ((*locked)["annotations"]["summary"], "GPU 1 on " + hostname + " is soft-locked");
        EXPECT_EQ((*locked)["annotations"]["description"],
                  "Its memory is used and no process holds it. Reset it: gpukill reset --gpu 1 "
                  "(docs/DEPLOY.md).");
    }

    // The shipped dashboard: its host picker offers this host, and every panel's query
    // returns series for it.
    std::vector<std::string> ours;
    collect_queries(json::parse(std::ifstream(kDeploy + "/grafana/gpukill-dashboard.json")), ours);
    ASSERT_GT(ours.size(), 5U);
    for (const std::string& query : ours) {
        if (query == "prometheus") continue;  // the datasource picker
        if (auto call = label_values_call(query)) {
            EXPECT_TRUE(prometheus.label_values(call->first, call->second).contains(hostname))
                << query;
            continue;
        }
        const std::string expr = replace_all(query, "$host", regex_literal(hostname));
        EXPECT_FALSE(prometheus.wait_for_series(expr, 20).empty()) << "no data: " << expr;
    }

    // NVIDIA's dashboard 12239 with no edit: its pickers fill from DCGM_FI_DEV_FB_FREE, and
    // each panel has data for this host and all its GPUs, but the two on DCGM's profiling
    // fields (DCGM_FI_PROF_*), which need DCGM's profiling module, not NVML (docs/METRICS.md).
    std::ifstream fixture(kFixtures + "/grafana/dcgm-exporter-12239.promql");
    std::string gpus;
    std::size_t panels = 0;
    for (std::string query; std::getline(fixture, query);) {
        if (query.empty() || query[0] == '#') continue;
        if (auto call = label_values_call(query)) {
            const std::string metric =
                replace_all(call->first, "$Hostname", regex_literal(hostname));
            const std::set<std::string> values = prometheus.label_values(metric, call->second);
            if (call->second == "Hostname") {
                EXPECT_TRUE(values.contains(hostname)) << query;
            } else {
                EXPECT_EQ(values, (std::set<std::string>{"0", "1"})) << query;
                for (const std::string& gpu : values) gpus += (gpus.empty() ? "" : "|") + gpu;
            }
            continue;
        }
        ASSERT_FALSE(gpus.empty()) << "the gpu picker comes first";
        const std::string expr = replace_all(
            replace_all(query, "$Hostname", regex_literal(hostname)), "$gpu", "(" + gpus + ")");
        const json result = prometheus.wait_for_series(expr, 10);
        if (query.find("DCGM_FI_PROF_") != std::string::npos) {
            EXPECT_TRUE(result.empty()) << "DCGM's profiling fields are not NVML's: " << expr;
        } else {
            EXPECT_FALSE(result.empty()) << "no data: " << expr;
            ++panels;
        }
    }
    EXPECT_EQ(panels, 6U);
}

}  // namespace
}  // namespace gpukill::testing
