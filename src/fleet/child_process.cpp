#include "fleet/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>

extern char** environ;

namespace gpukill::fleet {
namespace {

using ChildClock = std::chrono::steady_clock;

class ChildFd {
  public:
    explicit ChildFd(int fd = -1) : fd_(fd) {}
    ~ChildFd() { reset(); }
    ChildFd(const ChildFd&) = delete;
    ChildFd& operator=(const ChildFd&) = delete;
    int get() const { return fd_; }
    void reset() {
        if (fd_ >= 0) close(fd_);
        fd_ = -1;
    }

  private:
    int fd_;
};

bool reap_child_within(pid_t pid, int& status, double seconds) {
    const auto deadline = ChildClock::now() + std::chrono::duration<double>(seconds);
    while (true) {
        const pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) return true;
        if (done < 0 && errno != EINTR) return false;
        if (ChildClock::now() >= deadline) return false;
        poll(nullptr, 0, 10);
    }
}

std::string read_all_from_start(int fd, std::size_t cap) {
    std::string text;
    std::array<char, 8192> buffer{};
    off_t offset = 0;
    while (text.size() < cap) {
        const ssize_t n = pread(fd, buffer.data(), buffer.size(), offset);
        if (n <= 0) break;
        text.append(buffer.data(), static_cast<std::size_t>(n));
        offset += n;
    }
    return text;
}

}  // namespace

Result<ChildRun> run_child(const std::vector<std::string>& argv, double timeout_seconds,
                           std::size_t max_output_bytes, const std::function<bool()>& cancelled) {
    if (argv.empty()) return fail(ErrorCategory::internal, "run_child: no program");
    std::array<int, 2> out{};
    if (pipe2(out.data(), O_CLOEXEC) != 0) return fail("pipe", errno);
    ChildFd out_read(out[0]);
    ChildFd out_write(out[1]);
    ChildFd err_file(static_cast<int>(memfd_create("gpukill-fleet-stderr", MFD_CLOEXEC)));
    if (err_file.get() < 0) return fail("memfd_create", errno);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out_write.get(), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err_file.get(), STDERR_FILENO);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attributes, &none);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

    std::vector<char*> c_argv;
    for (const std::string& arg : argv) c_argv.push_back(const_cast<char*>(arg.c_str()));
    c_argv.push_back(nullptr);
    pid_t pid = -1;
    const int spawned =
        posix_spawnp(&pid, c_argv[0], &actions, &attributes, c_argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (spawned != 0) return fail("cannot run " + argv[0], spawned);
    out_write.reset();

    ChildRun run;
    ChildFd pidfd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
    const auto deadline = ChildClock::now() + std::chrono::duration<double>(timeout_seconds);
    bool output_open = true;
    bool exited = false;
    int status = 0;
    std::array<char, 8192> buffer{};
    while (!exited || output_open) {
        const double left = std::chrono::duration<double>(deadline - ChildClock::now()).count();
        if (left <= 0) {
            run.timed_out = !exited;
            break;
        }
        if (cancelled && cancelled()) {
            run.cancelled = !exited;
            break;
        }
        std::array<pollfd, 2> fds{};
        nfds_t count = 0;
        if (output_open) fds[count++] = {out_read.get(), POLLIN, 0};
        const bool watch_exit = !exited && pidfd.get() >= 0;
        if (watch_exit) fds[count++] = {pidfd.get(), POLLIN, 0};
        const int wait_ms =
            static_cast<int>(std::min(left * 1000.0, watch_exit ? 100.0 : 20.0)) + 1;
        if (poll(fds.data(), count, wait_ms) < 0 && errno != EINTR) break;
        if (output_open && fds[0].revents != 0) {
            const ssize_t n = read(out_read.get(), buffer.data(), buffer.size());
            if (n > 0) {
                if (run.out.size() < max_output_bytes) {
                    run.out.append(buffer.data(), static_cast<std::size_t>(n));
                }
            } else if (n == 0 || errno != EINTR) {
                output_open = false;
            }
        }
        if (!exited && waitpid(pid, &status, WNOHANG) == pid) {
            exited = true;
            // What it wrote is in the pipe already; anything still holding the pipe open
            // (a descendant) gets a short grace, not the whole timeout.
            if (output_open) {
                pollfd last{out_read.get(), POLLIN, 0};
                while (poll(&last, 1, 50) > 0) {
                    const ssize_t n = read(out_read.get(), buffer.data(), buffer.size());
                    if (n <= 0) break;
                    if (run.out.size() < max_output_bytes) {
                        run.out.append(buffer.data(), static_cast<std::size_t>(n));
                    }
                }
                output_open = false;
            }
        }
    }
    if (!exited) {
        // Unreaped, so the PID cannot have been reused: signalling it is safe.
        kill(pid, SIGTERM);
        if (!reap_child_within(pid, status, 2)) {
            kill(pid, SIGKILL);
            reap_child_within(pid, status, 5);
        }
    }
    run.exit_code = WIFEXITED(status)     ? WEXITSTATUS(status)
                    : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                          : -1;
    run.err = read_all_from_start(err_file.get(), 1u << 20);
    return run;
}

}  // namespace gpukill::fleet
