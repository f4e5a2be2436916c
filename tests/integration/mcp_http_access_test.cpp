// Who may talk to `gpukill mcp --http` without a token file: its own user and root,
// decided by the owner of the client's socket as the kernel records it. Another local
// user (here nobody, through a real loopback connection made after setuid) is refused
// before any tool runs, so it cannot read through the server what it could not read
// itself (the rogue scan's evidence, other users' command lines).
#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>

#include "support.hpp"

namespace gpukill::testing {
namespace {

constexpr uid_t kNobody = 65534;

class RunningMcpHttp {
  public:
    explicit RunningMcpHttp(const SimulatedHost& host, const std::vector<std::string>& extra = {}) {
        std::vector<std::string> argv = {"/bin/sh",   "-c",         "exec \"$0\" \"$@\" 2>&1",
                                         GPUKILL_BIN, "mcp",        "--http",
                                         "--listen",  "127.0.0.1:0"};
        argv.insert(argv.end(), extra.begin(), extra.end());
        process_ = std::make_unique<RunningCommand>(argv, host.env());
        while (auto line = process_->read_line(30)) {
            const std::size_t at = line->find("listening on http://127.0.0.1:");
            if (at == std::string::npos) continue;
            port_ = std::stoi(line->substr(at + std::strlen("listening on http://127.0.0.1:")));
            return;
        }
        throw std::runtime_error("gpukill mcp --http did not start");
    }
    ~RunningMcpHttp() {
        process_->send_signal(SIGTERM);
        process_->wait();
    }
    int port() const { return port_; }

  private:
    std::unique_ptr<RunningCommand> process_;
    int port_ = 0;
};

// POSTs an initialize request to 127.0.0.1:PORT/mcp as `uid` (a child that drops to it
// first) and returns the HTTP status and body. Its own plain socket, so the connection
// is really that user's.
std::pair<int, std::string> initialize_as(uid_t uid, int port) {
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(pipe_fds[0]);
        if (::setgroups(0, nullptr) != 0 || ::setgid(uid) != 0 || ::setuid(uid) != 0) _exit(126);
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(static_cast<std::uint16_t>(port));
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
            _exit(125);
        }
        const std::string body =
            R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":)"
            R"("2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})";
        const std::string request =
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\nConnection: close\r\n"
            "Content-Length: " +
            std::to_string(body.size()) + "\r\n\r\n" + body;
        if (::write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size())) {
            _exit(124);
        }
        char buffer[4096];
        ssize_t n = 0;
        while ((n = ::read(fd, buffer, sizeof buffer)) > 0) {
            if (::write(pipe_fds[1], buffer, static_cast<std::size_t>(n)) != n) _exit(123);
        }
        _exit(0);
    }
    ::close(pipe_fds[1]);
    std::string response;
    char buffer[4096];
    ssize_t n = 0;
    while ((n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0) {
        response.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(pipe_fds[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || response.size() < 12) {
        throw std::runtime_error("the client as uid " + std::to_string(uid) + " failed");
    }
    const std::size_t body_at = response.find("\r\n\r\n");
    return {std::stoi(response.substr(9, 3)),
            body_at == std::string::npos ? "" : response.substr(body_at + 4)};
}

TEST(McpHttpAccess, WithoutATokenFileOnlyTheServersOwnUserIsAnswered) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to connect as another user";
    SimulatedHost host;
    RunningMcpHttp server(host);
    const auto [own_status, own_body] = initialize_as(0, server.port());
    EXPECT_EQ(own_status, 200) << own_body;
    EXPECT_NE(own_body.find("\"serverInfo\""), std::string::npos) << own_body;

    const auto [other_status, other_body] = initialize_as(kNobody, server.port());
    EXPECT_EQ(other_status, 403) << other_body;
    EXPECT_NE(other_body.find("it answers only its own user (uid 0) and root"), std::string::npos)
        << other_body;
    EXPECT_EQ(other_body.find("serverInfo"), std::string::npos) << other_body;
}

}  // namespace
}  // namespace gpukill::testing
