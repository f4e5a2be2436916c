// The notify socket systemd would hold for a Type=notify service (NOTIFY_SOCKET): the
// agent's READY=1, WATCHDOG=1 and STOPPING=1 datagrams, each with its sender's PID.
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <optional>
#include <string>

namespace gpukill::testing {

struct Notification {
    std::string text;
    pid_t sender = 0;
};

// The notify socket systemd would hold: datagrams with their sender's credentials.
class NotifySocket {
  public:
    explicit NotifySocket(const std::string& path) : path_(path) {
        fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        path.copy(address.sun_path, sizeof address.sun_path - 1);
        const int on = 1;
        ok_ = fd_ >= 0 && path.size() < sizeof address.sun_path &&
              ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
              ::setsockopt(fd_, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) == 0;
    }
    ~NotifySocket() {
        if (fd_ >= 0) ::close(fd_);
        ::unlink(path_.c_str());
    }
    NotifySocket(const NotifySocket&) = delete;
    NotifySocket& operator=(const NotifySocket&) = delete;
    bool ok() const { return ok_; }

    // The next datagram, waiting at most `timeout_ms`.
    std::optional<Notification> receive(int timeout_ms) {
        pollfd waiting{fd_, POLLIN, 0};
        if (::poll(&waiting, 1, timeout_ms) != 1) return std::nullopt;
        char text[4096];
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
        iovec part{text, sizeof text};
        msghdr message{};
        message.msg_iov = &part;
        message.msg_iovlen = 1;
        message.msg_control = control;
        message.msg_controllen = sizeof control;
        const ssize_t n = ::recvmsg(fd_, &message, 0);
        if (n < 0) return std::nullopt;
        Notification received{std::string(text, static_cast<std::size_t>(n)), 0};
        for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
                ucred credentials{};
                std::memcpy(&credentials, CMSG_DATA(c), sizeof credentials);
                received.sender = credentials.pid;
            }
        }
        return received;
    }

  private:
    std::string path_;
    int fd_ = -1;
    bool ok_ = false;
};

// The next notification containing `field`, skipping others (WATCHDOG=1, STATUS=...).
inline std::optional<Notification> notification_with(NotifySocket& socket,
                                                     const std::string& field) {
    for (int i = 0; i < 20; ++i) {
        auto next = socket.receive(30000);
        if (!next) return std::nullopt;
        if (next->text.find(field) != std::string::npos) return next;
    }
    return std::nullopt;
}

}  // namespace gpukill::testing
