// A stand-in for the agent on its local channel (engine/local_channel.hpp), for the tests
// of what a client does with a broken or hostile answer: it listens where the agent would
// (STATE_DIR/agent.sock, made by the test's own user, so as trusted as the agent would
// be), and a child process of the test (never the client itself: a client does not ask
// its own process) answers each connection with the test's function. Every wait is
// bounded; the destructor kills and reaps the child and removes the socket.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/local_channel.hpp"
#include "sys/local_socket.hpp"

namespace gpukill::testing {

class FakeLocalAgent {
  public:
    using Answer = std::function<void(sys::LineChannel& connection)>;

    FakeLocalAgent(const std::string& path, const Answer& answer) : path_(path) {
        if (auto made = engine::make_local_channel_directory(path); !made) {
            throw std::runtime_error(made.error().what);
        }
        int fds[2] = {-1, -1};
        if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
        UniqueFd events_read(fds[0]);
        UniqueFd events_write(fds[1]);
        child_ = ::fork();
        if (child_ < 0) throw std::runtime_error("fork failed");
        if (child_ == 0) {
            // The child listens itself: the kernel names the process that called listen()
            // as the peer of every connection (SO_PEERCRED).
            events_read = UniqueFd();
            auto listener = sys::listen_local(path);
            if (!listener) ::_exit(1);
            const char ready = 'R';
            if (::write(events_write.get(), &ready, 1) != 1) ::_exit(1);
            serve(listener->get(), events_write.get(), answer);
            ::_exit(0);
        }
        events_write = UniqueFd();
        pollfd started{events_read.get(), POLLIN, 0};
        char ready = 0;
        if (::poll(&started, 1, 10'000) != 1 || ::read(events_read.get(), &ready, 1) != 1 ||
            ready != 'R') {
            ::kill(child_, SIGKILL);
            ::waitpid(child_, nullptr, 0);
            throw std::runtime_error("the fake agent did not listen on " + path);
        }
        ::fcntl(events_read.get(), F_SETFL, O_NONBLOCK);
        accepted_ = std::move(events_read);
    }

    ~FakeLocalAgent() {
        ::kill(child_, SIGKILL);
        ::waitpid(child_, nullptr, 0);
        ::unlink(path_.c_str());
    }

    FakeLocalAgent(const FakeLocalAgent&) = delete;
    FakeLocalAgent& operator=(const FakeLocalAgent&) = delete;

    pid_t pid() const { return child_; }

    // Connections accepted so far (each is counted before it is answered).
    int connections() {
        char seen[64];
        for (ssize_t n; (n = ::read(accepted_.get(), seen, sizeof seen)) > 0;) {
            connections_ += static_cast<int>(n);
        }
        return connections_;
    }

    static sys::Deadline in_seconds(int seconds) {
        return std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    }
    // Reads the request, then answers `lines` in order.
    static Answer replying(std::vector<std::string> lines) {
        return [lines = std::move(lines)](sys::LineChannel& connection) {
            if (!connection.read_line(in_seconds(10))) return;
            for (const std::string& line : lines) {
                if (!connection.write_line(line, in_seconds(10))) return;
            }
        };
    }
    // Reads the request and says nothing until the client hangs up (at most 20 s).
    static Answer silent() {
        return [](sys::LineChannel& connection) {
            if (!connection.read_line(in_seconds(10))) return;
            (void)connection.wait_readable(in_seconds(20));
        };
    }

  private:
    // In the child: one connection at a time, as the agent serves them, for at most a
    // minute (the parent kills it sooner).
    static void serve(int listener, int accepted, const Answer& answer) {
        const auto until = in_seconds(60);
        while (std::chrono::steady_clock::now() < until) {
            pollfd ready{listener, POLLIN, 0};
            if (::poll(&ready, 1, 1000) <= 0) continue;
            UniqueFd connection(::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC));
            if (!connection) continue;
            const char one = 1;
            (void)!::write(accepted, &one, 1);
            sys::LineChannel channel(std::move(connection), engine::kLocalLineBytes);
            answer(channel);
        }
    }

    std::string path_;
    pid_t child_ = -1;
    UniqueFd accepted_;
    int connections_ = 0;
};

}  // namespace gpukill::testing
