#include "detect/network_signals.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace gpukill::detect {
namespace {

std::string endpoint_text(const IpAddress& address, std::uint16_t port) {
    return address.v6 ? fmt::format("[{}]:{}", to_string(address), port)
                      : fmt::format("{}:{}", to_string(address), port);
}

bool opened_by_process(const TcpSocket& socket, const NetworkFacts& facts) {
    if (socket.state != kTcpEstablished && socket.state != kTcpSynSent) return false;
    return !facts.listening_ports.contains(socket.local_port);
}

std::string connection_text(const TcpSocket& socket) {
    const char* verb = socket.state == kTcpSynSent ? "connecting to" : "connected to";
    return fmt::format("{} {}", verb, endpoint_text(socket.remote, socket.remote_port));
}

// "connected to 127.0.0.1:3333" for each outgoing connection to a pool port.
std::vector<std::string> pool_port_connections(const NetworkFacts& facts,
                                               const RogueConfig& config) {
    std::vector<std::string> found;
    for (const TcpSocket& socket : facts.sockets) {
        if (!opened_by_process(socket, facts)) continue;
        if (std::find(config.pool_ports.begin(), config.pool_ports.end(), socket.remote_port) !=
            config.pool_ports.end()) {
            found.push_back(connection_text(socket));
        }
    }
    return found;
}

}  // namespace

std::optional<Evidence> judge_busy_pool_connection(const NetworkFacts& facts,
                                                   std::optional<double> busy_minutes,
                                                   const RogueConfig& config) {
    if (!busy_minutes) return std::nullopt;
    const std::vector<std::string> connections = pool_port_connections(facts, config);
    if (connections.empty()) return std::nullopt;
    return make_evidence(config, Signal::busy_pool_connection,
                         fmt::format("{} (a pool port) while keeping a GPU at >= {}% for "
                                     "{:.1f} minutes",
                                     join_examples(connections),
                                     config.usage_shape.min_utilization_percent, *busy_minutes));
}

std::set<std::uint16_t> listening_ports(const std::vector<TcpSocket>& table) {
    std::set<std::uint16_t> ports;
    for (const TcpSocket& socket : table) {
        if (socket.state == kTcpListen) ports.insert(socket.local_port);
    }
    return ports;
}

std::vector<Evidence> judge_network(const NetworkFacts& facts, const RogueConfig& config) {
    std::vector<IpAddress> pool_ips;
    for (const std::string& host : config.pool_hosts) {
        if (auto address = parse_ip_address(host)) pool_ips.push_back(*address);
    }
    const std::vector<std::string> to_pool_ports = pool_port_connections(facts, config);
    std::vector<std::string> to_pool_hosts;
    for (const TcpSocket& socket : facts.sockets) {
        if (!opened_by_process(socket, facts)) continue;
        if (std::find(pool_ips.begin(), pool_ips.end(), socket.remote) != pool_ips.end()) {
            to_pool_hosts.push_back(connection_text(socket));
        }
    }
    std::vector<Evidence> evidence;
    if (!to_pool_ports.empty()) {
        if (auto found = make_evidence(
                config, Signal::pool_port_connection,
                fmt::format("{} (a known mining pool port)", join_examples(to_pool_ports)))) {
            evidence.push_back(std::move(*found));
        }
    }
    if (!to_pool_hosts.empty()) {
        if (auto found = make_evidence(
                config, Signal::pool_host_connection,
                fmt::format("{} (a listed pool address)", join_examples(to_pool_hosts)))) {
            evidence.push_back(std::move(*found));
        }
    }
    return evidence;
}

}  // namespace gpukill::detect
