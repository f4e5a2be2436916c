#include "cli/connections.hpp"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace gpusim {
namespace {

struct HostPort {
    std::string host;
    std::string port;
};

Result<HostPort> split_endpoint(const std::string& endpoint) {
    HostPort parts;
    if (!endpoint.empty() && endpoint.front() == '[') {
        const auto close = endpoint.find("]:");
        if (close == std::string::npos) {
            return fail(kExitUsage, "--connect " + endpoint + ": expected [IPv6]:PORT");
        }
        parts.host = endpoint.substr(1, close - 1);
        parts.port = endpoint.substr(close + 2);
    } else {
        const auto colon = endpoint.rfind(':');
        if (colon == std::string::npos || endpoint.find(':') != colon) {
            return fail(kExitUsage,
                        "--connect " + endpoint + ": expected IPv4:PORT or [IPv6]:PORT");
        }
        parts.host = endpoint.substr(0, colon);
        parts.port = endpoint.substr(colon + 1);
    }
    return parts;
}

Result<int> connect_to(const std::string& endpoint) {
    auto parts = split_endpoint(endpoint);
    if (!parts) return std::unexpected(parts.error());
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
    addrinfo* found = nullptr;
    if (const int rc = ::getaddrinfo(parts->host.c_str(), parts->port.c_str(), &hints, &found);
        rc != 0) {
        return fail(kExitUsage, "--connect " + endpoint + ": " + ::gai_strerror(rc));
    }
    const int fd =
        ::socket(found->ai_family, found->ai_socktype | SOCK_CLOEXEC, found->ai_protocol);
    if (fd < 0) {
        const int err = errno;
        ::freeaddrinfo(found);
        return fail(kExitFailure, "cannot create a socket: " + errno_text(err));
    }
    int rc = 0;
    do {
        rc = ::connect(fd, found->ai_addr, found->ai_addrlen);
    } while (rc != 0 && errno == EINTR);
    const int err = errno;
    ::freeaddrinfo(found);
    if (rc != 0) {
        ::close(fd);
        return fail(kExitFailure, "cannot connect to " + endpoint + ": " + errno_text(err));
    }
    return fd;
}

}  // namespace

Result<void> hold_connections(const std::vector<std::string>& endpoints) {
    std::vector<int> held;
    for (const std::string& endpoint : endpoints) {
        auto fd = connect_to(endpoint);
        if (!fd) {
            for (int open_fd : held) ::close(open_fd);
            return std::unexpected(fd.error());
        }
        held.push_back(*fd);  // never closed: the workload holds it for its life
    }
    return {};
}

}  // namespace gpusim
