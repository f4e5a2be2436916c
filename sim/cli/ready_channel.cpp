#include "cli/ready_channel.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>

#include "cli/commands.hpp"
#include "state/files.hpp"

namespace gpusim {

namespace {

// Pipe protocol, one line: "R <ready line>" or "E <exit code> <message>".
constexpr char kReadyTag = 'R';
constexpr char kErrorTag = 'E';

std::string read_line(int fd) {
    std::string line;
    char c = 0;
    for (;;) {
        const ssize_t got = ::read(fd, &c, 1);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0 || c == '\n') return line;
        line += c;
    }
}

// Points stdin, stdout and stderr at /dev/null so a detached workload holds no terminal or
// pipe of its caller open (`$(gpusim run --background ...)` would otherwise never finish).
bool detach_stdio() {
    const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd < 0) return false;
    bool ok = true;
    for (int fd = 0; fd <= 2; ++fd) ok = ok && ::dup2(null_fd, fd) == fd;
    ::close(null_fd);
    return ok;
}

int wait_for_report(int read_fd, pid_t child) {
    const std::string line = read_line(read_fd);
    ::close(read_fd);
    if (line.size() >= 2 && line[0] == kReadyTag) {
        std::fputs(line.c_str() + 2, stdout);
        std::fputc('\n', stdout);
        std::fflush(stdout);
        return kExitOk;
    }
    // The workload failed; it exits right after reporting, so reap it.
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (line.size() >= 2 && line[0] == kErrorTag) {
        const std::string_view rest = std::string_view(line).substr(2);
        int code = kExitFailure;
        const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), code);
        if (error == std::errc{} && end < rest.data() + rest.size()) {
            return report(Error{code, std::string(end + 1, rest.data() + rest.size())});
        }
    }
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : kExitFailure;
    return report(Error{code == 0 ? kExitFailure : code, "workload exited before it was ready"});
}

}  // namespace

void ReadyChannel::ready(std::string_view json_line) {
    if (fd_ < 0) {
        std::fwrite(json_line.data(), 1, json_line.size(), stdout);
        std::fputc('\n', stdout);
        std::fflush(stdout);
        return;
    }
    write_all(fd_, std::string(1, kReadyTag) + " " + std::string(json_line) + "\n");
    close();
}

int ReadyChannel::error(const Error& error) {
    if (fd_ < 0) return report(error);
    write_all(fd_, std::string(1, kErrorTag) + " " + std::to_string(error.exit_code) + " " +
                       error.message + "\n");
    close();
    return error.exit_code;
}

void ReadyChannel::close_in_worker() {
    close();
}

void ReadyChannel::close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

int detach_workload(ReadyChannel* child_channel, bool* is_child) {
    *is_child = false;
    int fds[2] = {-1, -1};
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        return report(Error{kExitFailure, "cannot create a pipe: " + errno_text(errno)});
    }
    std::fflush(nullptr);  // nothing buffered may be written twice
    const pid_t child = ::fork();
    if (child < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return report(Error{kExitFailure, "cannot fork: " + errno_text(errno)});
    }
    if (child == 0) {
        ::close(fds[0]);
        *is_child = true;
        *child_channel = ReadyChannel::pipe(fds[1]);
        // A new session: the workload outlives the caller's terminal and process group.
        if (::setsid() < 0 || !detach_stdio()) {
            return child_channel->error(Error{kExitFailure, "cannot detach: " + errno_text(errno)});
        }
        return kExitOk;
    }
    ::close(fds[1]);
    return wait_for_report(fds[0], child);
}

}  // namespace gpusim
