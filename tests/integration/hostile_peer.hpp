// A hostile HTTP peer for the listeners' tests (the agent, MCP over HTTP): raw loopback
// sockets that flood, drip and hold connections, every loop bounded in count and time,
// and the server's resident memory read from /proc while it happens.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "support.hpp"

namespace gpukill::testing {

using PeerClock = std::chrono::steady_clock;

// A TCP connection to 127.0.0.1:port, made within `limit_seconds`; -1 when refused or
// not accepted in time (a server with a full backlog leaves connect() waiting).
inline int connect_loopback(int port, double limit_seconds = 2) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return -1;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        pollfd p{fd, POLLOUT, 0};
        int error = 0;
        socklen_t length = sizeof error;
        if (errno != EINPROGRESS || ::poll(&p, 1, static_cast<int>(limit_seconds * 1000)) <= 0 ||
            ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0 || error != 0) {
            ::close(fd);
            return -1;
        }
    }
    return fd;
}

// Sends `data`; false when the server stopped taking it (closed, reset, or no progress
// for `stall_seconds`).
inline bool send_all(int fd, std::string_view data, double stall_seconds = 2) {
    std::size_t sent = 0;
    while (sent < data.size()) {
        pollfd p{fd, POLLOUT, 0};
        if (::poll(&p, 1, static_cast<int>(stall_seconds * 1000)) <= 0) return false;
        if ((p.revents & (POLLERR | POLLHUP)) != 0) return false;
        const ssize_t n =
            ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n <= 0) {
            if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
            return false;
        }
        sent += static_cast<std::size_t>(n);
    }
    return true;
}

struct PeerAnswer {
    std::string text;     // what the server wrote
    bool closed = false;  // it closed the connection (EOF or reset)
};

// Reads until the server closes, `limit_seconds` pass, or `until` appears.
inline PeerAnswer read_answer(int fd, double limit_seconds, std::string_view until = {}) {
    PeerAnswer answer;
    const auto deadline = PeerClock::now() + std::chrono::duration_cast<PeerClock::duration>(
                                                 std::chrono::duration<double>(limit_seconds));
    while (PeerClock::now() < deadline) {
        if (!until.empty() && answer.text.find(until) != std::string::npos) return answer;
        pollfd p{fd, POLLIN, 0};
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - PeerClock::now())
                .count();
        if (::poll(&p, 1, static_cast<int>(std::max<long long>(left, 1))) <= 0) continue;
        char chunk[8192];
        const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
        if (n <= 0) {
            answer.closed = true;
            return answer;
        }
        answer.text.append(chunk, static_cast<std::size_t>(n));
    }
    return answer;
}

// "HTTP/1.1 413 ..." -> 413; 0 when there is no status line.
inline int status_of(const std::string& text) {
    if (text.rfind("HTTP/1.", 0) != 0 || text.size() < 12) return 0;
    return std::stoi(text.substr(9, 3));
}

// A field of /proc/PID/status in KiB: "VmRSS" (now), "VmHWM" (the peak so far).
inline std::uint64_t memory_kib(pid_t pid, const std::string& field) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind(field + ":", 0) == 0) return std::stoull(line.substr(field.size() + 1));
    }
    return 0;
}

// Closes a descriptor when it goes out of scope.
class PeerSocket {
  public:
    explicit PeerSocket(int fd) : fd_(fd) {}
    ~PeerSocket() {
        if (fd_ >= 0) ::close(fd_);
    }
    PeerSocket(PeerSocket&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
    PeerSocket(const PeerSocket&) = delete;
    PeerSocket& operator=(const PeerSocket&) = delete;
    int get() const { return fd_; }
    explicit operator bool() const { return fd_ >= 0; }

  private:
    int fd_;
};

// A directory beside the simulated host's root, made now.
inline std::string peer_test_dir(const SimulatedHost& host, const std::string& name) {
    const std::string dir = std::filesystem::path(host.root()).parent_path().string() + "/" + name;
    std::filesystem::create_directories(dir);
    return dir;
}

// ASan without its quarantine (which holds freed memory on purpose): the resident set
// then shows what the server holds.
inline std::map<std::string, std::string> without_asan_quarantine(
    std::map<std::string, std::string> env = {}) {
    env["ASAN_OPTIONS"] = "quarantine_size_mb=0:detect_leaks=0";
    return env;
}

// One chunk of a chunked body: `size` bytes of 'x'.
inline std::string http_chunk(std::size_t size) {
    return fmt::format("{:x}\r\n{}\r\n", size, std::string(size, 'x'));
}

// A request's head and then `filler` again and again, up to `total` bytes or until the
// server stops taking them; then the server's answer.
inline PeerAnswer flood_request(int port, const std::string& head, const std::string& filler,
                                std::size_t total = 64u << 20) {
    PeerSocket socket(connect_loopback(port));
    if (!socket) return {};
    if (send_all(socket.get(), head)) {
        for (std::size_t sent = 0; sent < total && send_all(socket.get(), filler);) {
            sent += filler.size();
        }
    }
    return read_answer(socket.get(), 10);
}

}  // namespace gpukill::testing
