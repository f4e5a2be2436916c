#include "net/peer_owner.hpp"

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

namespace gpukill::net {
namespace {

class NetlinkSocket {
  public:
    NetlinkSocket() : fd_(::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG)) {}
    ~NetlinkSocket() {
        if (fd_ >= 0) ::close(fd_);
    }
    NetlinkSocket(const NetlinkSocket&) = delete;
    NetlinkSocket& operator=(const NetlinkSocket&) = delete;
    int get() const { return fd_; }

  private:
    int fd_;
};

// `text` into the four 32-bit words inet_diag_sockid holds, for `family`.
bool put_address(const std::string& text, int family, __be32 (&words)[4]) {
    std::memset(words, 0, sizeof words);
    return ::inet_pton(family, text.c_str(), words) == 1;
}

std::unexpected<Error> system_error(const char* what, int errno_value) {
    return fail(ErrorCategory::unavailable, std::string(what) + ": " + std::strerror(errno_value));
}

}  // namespace

Result<uid_t> loopback_peer_owner(const TcpEndpoint& client, const TcpEndpoint& server) {
    // Both ends of one connection are of one family; an IPv6 listener sees IPv4 clients
    // as ::ffff:a.b.c.d, and the kernel keeps that socket under AF_INET6 too.
    const int family = client.address.find(':') != std::string::npos ? AF_INET6 : AF_INET;
    struct Request {
        nlmsghdr header;
        inet_diag_req_v2 body;
    } request{};
    request.header.nlmsg_len = sizeof request;
    request.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    request.header.nlmsg_flags = NLM_F_REQUEST;
    request.body.sdiag_family = static_cast<std::uint8_t>(family);
    request.body.sdiag_protocol = IPPROTO_TCP;
    request.body.idiag_states = ~0U;
    inet_diag_sockid& id = request.body.id;
    id.idiag_sport = htons(client.port);
    id.idiag_dport = htons(server.port);
    if (!put_address(client.address, family, id.idiag_src) ||
        !put_address(server.address, family, id.idiag_dst)) {
        return fail(ErrorCategory::invalid_input,
                    "not an address: " + client.address + ", " + server.address);
    }
    id.idiag_if = 0;
    id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
    id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;

    NetlinkSocket netlink;
    if (netlink.get() < 0) return system_error("cannot open NETLINK_SOCK_DIAG", errno);
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    if (::sendto(netlink.get(), &request, sizeof request, 0, reinterpret_cast<sockaddr*>(&kernel),
                 sizeof kernel) != static_cast<ssize_t>(sizeof request)) {
        return system_error("cannot ask the kernel for a socket's owner", errno);
    }
    alignas(nlmsghdr) std::array<char, 8192> buffer{};
    ssize_t received = -1;
    do {
        received = ::recv(netlink.get(), buffer.data(), buffer.size(), 0);
    } while (received < 0 && errno == EINTR);
    if (received < 0) return system_error("no answer about a socket's owner", errno);
    int length = static_cast<int>(received);
    for (auto* message = reinterpret_cast<nlmsghdr*>(buffer.data()); NLMSG_OK(message, length);
         message = NLMSG_NEXT(message, length)) {
        if (message->nlmsg_type == NLMSG_ERROR) {
            const auto* error = static_cast<const nlmsgerr*>(NLMSG_DATA(message));
            if (error->error == -ENOENT) break;
            return system_error("the kernel refused a socket lookup", -error->error);
        }
        if (message->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
            message->nlmsg_len < NLMSG_LENGTH(sizeof(inet_diag_msg))) {
            continue;
        }
        const auto* found = static_cast<const inet_diag_msg*>(NLMSG_DATA(message));
        return static_cast<uid_t>(found->idiag_uid);
    }
    return fail(ErrorCategory::not_found, "no such connection on this host");
}

}  // namespace gpukill::net
