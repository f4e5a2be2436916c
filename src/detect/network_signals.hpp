// Signals from a process's TCP connections: an outgoing connection to a known pool port
// (pool_port_connection) or to a pool host listed by IP address (pool_host_connection).
// Pool hosts listed by name are never resolved (a lookup per check would be slow, leak
// what is being checked, and miners connect by IP or through proxies anyway): only IP
// literals in pool_hosts are compared here. Pure.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "detect/evidence.hpp"
#include "detect/proc_net_tcp.hpp"
#include "detect/rogue_config.hpp"

namespace gpukill::detect {

struct NetworkFacts {
    // The process's own TCP sockets (tcp and tcp6 entries whose inode is one of its fds).
    std::vector<TcpSocket> sockets;
    // Local ports something listens on in its network namespace. A connection whose
    // local port is one of them was accepted by a server, not opened by the process, and
    // its remote port is the client's ephemeral one: not judged.
    std::set<std::uint16_t> listening_ports;
};

// Only ESTABLISHED and SYN_SENT connections count.
std::vector<Evidence> judge_network(const NetworkFacts& facts, const RogueConfig& config);

// The listening ports of a namespace's tables.
std::set<std::uint16_t> listening_ports(const std::vector<TcpSocket>& table);

}  // namespace gpukill::detect
