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

}  // namespace

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
    std::vector<std::string> to_pool_ports;
    std::vector<std::string> to_pool_hosts;
    for (const TcpSocket& socket : facts.sockets) {
        if (socket.state != kTcpEstablished && socket.state != kTcpSynSent) continue;
        if (facts.listening_ports.contains(socket.local_port)) continue;
        const char* verb = socket.state == kTcpSynSent ? "connecting to" : "connected to";
        const std::string peer = endpoint_text(socket.remote, socket.remote_port);
        if (std::find(config.pool_ports.begin(), config.pool_ports.end(), socket.remote_port) !=
            config.pool_ports.end()) {
            to_pool_ports.push_back(fmt::format("{} {}", verb, peer));
        }
        if (std::find(pool_ips.begin(), pool_ips.end(), socket.remote) != pool_ips.end()) {
            to_pool_hosts.push_back(fmt::format("{} {}", verb, peer));
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
