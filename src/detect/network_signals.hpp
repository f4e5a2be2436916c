// Signals from a process's TCP connections: an outgoing connection to a known pool port
// (pool_port_connection) or to a pool host listed by IP address (pool_host_connection).
// Pool hosts listed by name are never resolved (a lookup per check would be slow, leak
// what is being checked, and miners connect by IP or through proxies anyway): only IP
// literals in pool_hosts are compared here. Pure.
#pragma once

#include <cstdint>
#include <optional>
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

// A connection to a pool port (as judge_network counts them) from a process whose usage
// history shows a GPU it held busy for `busy_minutes` (the usage shape's longest busy
// stretch, when it lasted usage_shape.min_minutes; empty otherwise, whatever its memory).
// Each sign is innocent alone; together they are a miner at work (busy_pool_connection).
std::optional<Evidence> judge_busy_pool_connection(const NetworkFacts& facts,
                                                   std::optional<double> busy_minutes,
                                                   const RogueConfig& config);

// The listening ports of a namespace's tables.
std::set<std::uint16_t> listening_ports(const std::vector<TcpSocket>& table);

}  // namespace gpukill::detect
