// A real Prometheus (Debian's) for the integration tests: started on a loopback port of
// its own, scraping the agent every second and, when given rule files, evaluating them
// every second; asked through its HTTP API, as Grafana and Alertmanager ask it. Every
// wait is bounded and polls the API; the process is killed by the destructor.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "support.hpp"

namespace gpukill::testing {

inline int free_loopback_port() {
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
    using Clock = std::chrono::steady_clock;

    // Scrapes 127.0.0.1:agent_port (job "gpukill") every second; evaluates `rule_files`.
    Prometheus(const std::string& dir, int agent_port,
               const std::vector<std::string>& rule_files = {})
        : port_(free_loopback_port()) {
        const std::string config = dir + "/prometheus.yml";
        std::ofstream out(config);
        out << "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
            << "  evaluation_interval: 1s\n";
        if (!rule_files.empty()) {
            out << "rule_files:\n";
            for (const std::string& file : rule_files) out << "  - '" << file << "'\n";
        }
        out << "scrape_configs:\n  - job_name: gpukill\n"
            << "    static_configs:\n      - targets: ['127.0.0.1:" << agent_port << "']\n";
        out.close();
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

    // GET /api/v1/PATH with `params`: the `data` of a successful answer, else null.
    nlohmann::json api(const std::string& path, const httplib::Params& params = {}) const {
        httplib::Client client("127.0.0.1", port_);
        client.set_read_timeout(10);
        auto answer = client.Get("/api/v1/" + path, params, httplib::Headers{});
        if (!answer || answer->status != 200) return nullptr;
        const nlohmann::json body = nlohmann::json::parse(answer->body, nullptr, false);
        if (body.is_discarded() || body.value("status", "") != "success") return nullptr;
        return body["data"];
    }

    // The series an instant query returns (an empty array while there are none).
    nlohmann::json series(const std::string& promql) const {
        const nlohmann::json data = api("query", {{"query", promql}});
        if (!data.is_object() || !data["result"].is_array()) return nlohmann::json::array();
        return data["result"];
    }

    // The value of an instant query's single series; empty while it has none.
    std::optional<double> query(const std::string& promql) const {
        const nlohmann::json result = series(promql);
        if (result.size() != 1) return std::nullopt;
        return std::stod(result[0]["value"][1].get<std::string>());
    }

    // Grafana's label_values(METRIC, LABEL): the values LABEL takes on METRIC's series.
    std::set<std::string> label_values(const std::string& metric, const std::string& label) const {
        std::set<std::string> values;
        const nlohmann::json data = api("series", {{"match[]", metric}});
        if (!data.is_array()) return values;
        for (const nlohmann::json& labels : data) {
            if (labels.contains(label)) values.insert(labels[label].get<std::string>());
        }
        return values;
    }

    // The alerts now pending or firing, with their labels and rendered annotations.
    nlohmann::json alerts() const {
        const nlohmann::json data = api("alerts");
        return data.is_object() ? data["alerts"] : nlohmann::json::array();
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

    // Waits (bounded) until `promql` returns at least one series; its series.
    nlohmann::json wait_for_series(const std::string& promql, double timeout_seconds) const {
        nlohmann::json seen = nlohmann::json::array();
        const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
        while (Clock::now() < deadline) {
            seen = series(promql);
            if (!seen.empty()) return seen;
            std::this_thread::sleep_for(std::chrono::milliseconds(250));  // polled, bounded
        }
        return seen;
    }

  private:
    int port_;
    std::unique_ptr<RunningCommand> process_;
};

}  // namespace gpukill::testing
