#include "host/run_program.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <string>

#include "host/pidfd.hpp"
#include "sys/fd_io.hpp"

namespace gpukill {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// In the child, between fork and exec: async-signal-safe calls only.
[[noreturn]] void exec_child(char* const* argv, int out_fd, int report_fd) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    sigaction(SIGPIPE, &default_action, nullptr);
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0 || dup2(devnull, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
        dup2(out_fd, STDERR_FILENO) < 0) {
        int error = errno;
        (void)!write(report_fd, &error, sizeof error);
        _exit(127);
    }
    execv(argv[0], argv);
    int error = errno;
    (void)!write(report_fd, &error, sizeof error);
    _exit(127);
}

// Waits for the child to end, up to `seconds`; true once reaped into `status`.
bool reap_within(pid_t pid, int& status, double seconds) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
    while (true) {
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) return true;
        if (done < 0 && errno != EINTR) return false;
        if (Clock::now() >= deadline) return false;
        poll(nullptr, 0, 20);  // a child past SIGKILL in uninterruptible sleep: rare, bounded
    }
}

}  // namespace

bool is_executable_file(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
}

std::optional<std::string> find_in_path(std::string_view name, std::string_view path_list,
                                        const std::function<bool(const std::string&)>& executable) {
    while (true) {
        const std::size_t colon = path_list.find(':');
        std::string dir(path_list.substr(0, colon));
        if (dir.empty()) dir = ".";
        std::string candidate = dir + "/" + std::string(name);
        if (executable(candidate)) return candidate;
        if (colon == std::string_view::npos) return std::nullopt;
        path_list.remove_prefix(colon + 1);
    }
}

Result<ProgramRun> run_program(const std::vector<std::string>& argv,
                               const ProgramOptions& options) {
    if (argv.empty()) return fail("run_program: no program given");
    std::vector<char*> c_argv;
    for (const std::string& arg : argv) c_argv.push_back(const_cast<char*>(arg.c_str()));
    c_argv.push_back(nullptr);

    std::array<int, 2> out{};
    std::array<int, 2> report{};
    if (pipe2(out.data(), O_CLOEXEC) != 0) return std::unexpected(os_error("pipe", errno));
    UniqueFd out_read(out[0]);
    UniqueFd out_write(out[1]);
    if (pipe2(report.data(), O_CLOEXEC) != 0) return std::unexpected(os_error("pipe", errno));
    UniqueFd report_read(report[0]);
    UniqueFd report_write(report[1]);

    const auto start = Clock::now();
    pid_t pid = fork();
    if (pid < 0) return std::unexpected(os_error("fork", errno));
    if (pid == 0) exec_child(c_argv.data(), out_write.get(), report_write.get());
    out_write = UniqueFd();
    report_write = UniqueFd();

    // The report pipe closes on a successful exec (close-on-exec) or carries exec's errno.
    int exec_error = 0;
    ssize_t got = 0;
    do {
        got = read(report_read.get(), &exec_error, sizeof exec_error);
    } while (got < 0 && errno == EINTR);
    if (got == static_cast<ssize_t>(sizeof exec_error)) {
        int ignored = 0;
        waitpid(pid, &ignored, 0);
        return std::unexpected(os_error("cannot run " + argv[0], exec_error));
    }

    ProgramRun run;
    UniqueFd pidfd(pidfd_open_process(pid));
    Clock::time_point deadline =
        start + std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double>(options.timeout_seconds));
    bool output_open = true;
    bool exited = false;
    int status = 0;
    bool reaped = false;
    std::array<char, 4096> buffer{};
    while (output_open || !exited) {
        const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
        if (left <= 0) {
            // Exited, but something it started keeps the output open: stop reading.
            run.timed_out = !exited;
            break;
        }
        std::array<pollfd, 2> fds{};
        nfds_t count = 0;
        if (output_open) fds[count++] = {out_read.get(), POLLIN, 0};
        const bool watch_exit = !exited && pidfd.get() >= 0;
        if (watch_exit) fds[count++] = {pidfd.get(), POLLIN, 0};
        // Without a pidfd (kernels before 5.3) exit is checked every 50 ms.
        const int wait_ms =
            static_cast<int>(std::min(left * 1000.0, watch_exit ? 1000.0 : 50.0)) + 1;
        if (poll(fds.data(), count, wait_ms) < 0 && errno != EINTR) break;
        if (output_open && fds[0].revents != 0) {
            ssize_t n = read(out_read.get(), buffer.data(), buffer.size());
            if (n > 0) {
                const std::size_t room = options.max_output_bytes -
                                         std::min(options.max_output_bytes, run.output.size());
                run.output.append(buffer.data(), std::min(room, static_cast<std::size_t>(n)));
                run.output_truncated |= static_cast<std::size_t>(n) > room;
            } else if (n == 0 || errno != EINTR) {
                output_open = false;
            }
        }
        if (!exited) {
            pid_t done = waitpid(pid, &status, WNOHANG);
            if (done == pid) {
                exited = reaped = true;
                deadline =
                    std::min<Clock::time_point>(deadline, Clock::now() + std::chrono::seconds(1));
            }
        }
    }
    if (!reaped) {
        // Past the deadline. The child is unreaped, so its PID cannot be reused: kill() is safe.
        kill(pid, SIGTERM);
        reaped = reap_within(pid, status, options.kill_grace_seconds);
        if (!reaped) {
            kill(pid, SIGKILL);
            reaped = reap_within(pid, status, options.kill_grace_seconds);
        }
    }
    run.seconds = seconds_since(start);
    if (reaped && WIFEXITED(status)) run.exit_status = WEXITSTATUS(status);
    if (reaped && WIFSIGNALED(status)) run.signal = WTERMSIG(status);
    return run;
}

}  // namespace gpukill
