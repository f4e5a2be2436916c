#include "sys/local_socket.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace gpukill::sys {
namespace {

Result<sockaddr_un> address_of(const std::string& path) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof address.sun_path) {
        return fail(ErrorCategory::invalid_input,
                    "socket path " + path + " is empty or longer than " +
                        std::to_string(sizeof address.sun_path - 1) + " bytes");
    }
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    return address;
}

Result<UniqueFd> new_socket() {
    UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!fd) return std::unexpected(os_error("socket(AF_UNIX)", errno));
    return fd;
}

int milliseconds_until(Deadline deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    return static_cast<int>(std::max<std::int64_t>(0, left.count()));
}

}  // namespace

Result<PeerCredentials> peer_credentials(int fd) {
    ucred credentials{};
    socklen_t size = sizeof credentials;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) {
        return std::unexpected(os_error("getsockopt(SO_PEERCRED)", errno));
    }
    return PeerCredentials{credentials.pid, credentials.uid, credentials.gid};
}

bool trusted_local_peer(uid_t peer_uid, uid_t own_uid) {
    return peer_uid == 0 || peer_uid == own_uid;
}

Result<UniqueFd> connect_local(const std::string& path) {
    auto address = address_of(path);
    if (!address) return std::unexpected(address.error());
    auto fd = new_socket();
    if (!fd) return fd;
    if (::connect(fd->get(), reinterpret_cast<const sockaddr*>(&*address), sizeof *address) != 0) {
        const int err = errno;
        if (err == ENOENT || err == ECONNREFUSED) {
            return fail(ErrorCategory::not_found, "nothing listens on " + path);
        }
        if (err == EAGAIN) return fail(ErrorCategory::conflict, path + ": too many connections");
        return std::unexpected(os_error("cannot connect to " + path, err));
    }
    return fd;
}

Result<UniqueFd> listen_local(const std::string& path) {
    auto address = address_of(path);
    if (!address) return std::unexpected(address.error());
    struct stat existing {};
    if (::lstat(path.c_str(), &existing) == 0) {
        if (!S_ISSOCK(existing.st_mode)) {
            return fail(ErrorCategory::invalid_input,
                        path + " exists and is not a socket: not removed");
        }
        auto live = connect_local(path);
        if (live) return fail(ErrorCategory::conflict, "another process serves " + path);
        if (live.error().category != ErrorCategory::not_found) return std::unexpected(live.error());
        if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
            return std::unexpected(os_error("cannot remove the stale socket " + path, errno));
        }
    }
    auto fd = new_socket();
    if (!fd) return fd;
    if (::bind(fd->get(), reinterpret_cast<const sockaddr*>(&*address), sizeof *address) != 0) {
        return std::unexpected(os_error("cannot bind " + path, errno));
    }
    // Connecting needs write permission on the file: its owner alone (SO_PEERCRED is
    // checked on every connection all the same).
    if (::chmod(path.c_str(), 0600) != 0 || ::listen(fd->get(), 16) != 0) {
        const int err = errno;
        ::unlink(path.c_str());
        return std::unexpected(os_error("cannot listen on " + path, err));
    }
    return fd;
}

Result<std::string> LineChannel::read_line(Deadline deadline) {
    return read_line(deadline, max_line_);
}

Result<std::string> LineChannel::read_line(Deadline deadline, std::size_t max_line) {
    // Only what arrived since the last look is searched for the newline: a long line (a
    // snapshot) costs one pass, not one pass per chunk.
    std::size_t searched = 0;
    for (;;) {
        const std::size_t end = buffer_.find('\n', searched);
        if (std::min(end, buffer_.size()) > max_line) {
            return fail(ErrorCategory::invalid_input,
                        "a line longer than " + std::to_string(max_line) + " bytes");
        }
        if (end != std::string::npos) {
            std::string line = buffer_.substr(0, end);
            buffer_.erase(0, end + 1);
            return line;
        }
        searched = buffer_.size();
        pollfd ready{fd_.get(), POLLIN, 0};
        const int polled = ::poll(&ready, 1, milliseconds_until(deadline));
        if (polled < 0 && errno == EINTR) continue;
        if (polled < 0) return std::unexpected(os_error("poll", errno));
        if (polled == 0) return fail(ErrorCategory::conflict, "no answer in time");
        // Read straight into the buffer, never past the line's limit (and its newline).
        const std::size_t room = std::min<std::size_t>(64 * 1024, max_line + 1 - buffer_.size());
        buffer_.resize(searched + room);
        const ssize_t n = ::read(fd_.get(), buffer_.data() + searched, room);
        const int err = errno;
        buffer_.resize(searched + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
        if (n < 0 && (err == EINTR || err == EAGAIN)) continue;
        if (n < 0) return std::unexpected(os_error("read", err));
        if (n == 0) return fail(ErrorCategory::not_found, "the other end closed the connection");
    }
}

Result<void> LineChannel::write_line(std::string_view line, Deadline deadline) {
    std::string data(line);
    data += '\n';
    std::size_t sent = 0;
    while (sent < data.size()) {
        const ssize_t n = ::send(fd_.get(), data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
        if (n > 0) {
            sent += static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno != EAGAIN) return std::unexpected(os_error("send", errno));
        pollfd ready{fd_.get(), POLLOUT, 0};
        if (::poll(&ready, 1, milliseconds_until(deadline)) == 0) {
            return fail(ErrorCategory::conflict, "the other end does not read");
        }
    }
    return {};
}

bool LineChannel::wait_readable(Deadline deadline, int also) {
    if (!buffer_.empty()) return true;
    for (;;) {
        pollfd ready[2] = {{fd_.get(), POLLIN, 0}, {also, POLLIN, 0}};
        const int polled = ::poll(ready, also >= 0 ? 2 : 1, milliseconds_until(deadline));
        if (polled < 0 && errno == EINTR) continue;
        return polled > 0 && ready[0].revents != 0;
    }
}

}  // namespace gpukill::sys
