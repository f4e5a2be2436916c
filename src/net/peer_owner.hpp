// Who is on the other end of a loopback TCP connection, as the kernel knows it: the
// owner (uid) of the client's socket, asked of the kernel's socket table through
// NETLINK_SOCK_DIAG (what `ss -e` shows) by the connection's exact addresses and ports.
// A TCP peer sends no credentials (unlike a unix socket's SO_PEERCRED); on loopback
// both ends are sockets of this host, so the client's socket is in the table with the
// uid of whoever made it. Nothing the client sends decides it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "model/result.hpp"

namespace gpukill::net {

struct TcpEndpoint {
    std::string address;  // "127.0.0.1", "::1", "::ffff:127.0.0.1"
    std::uint16_t port = 0;
};

// The uid owning the socket at `client` connected to `server`. not_found when no such
// connection exists in this network namespace (it closed; or it is not a local one);
// invalid_input for an address that is not one.
Result<uid_t> loopback_peer_owner(const TcpEndpoint& client, const TcpEndpoint& server);

}  // namespace gpukill::net
