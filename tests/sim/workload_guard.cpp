#include "workload_guard.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "sim_harness.hpp"

namespace gpusim_test {

namespace {

using Clock = std::chrono::steady_clock;

// Through syscall(2): glibc 2.36's <sys/pidfd.h> lacks C linkage for C++ callers.
int open_pidfd(pid_t pid) {
    const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0U));
    if (fd < 0) throw std::runtime_error("pidfd_open failed for " + std::to_string(pid));
    ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    return fd;
}

// Reads whatever is available on `fd` up to `deadline` or until `done(text)` holds.
template <class Done>
void read_until(int fd, std::string& text, Clock::time_point deadline, Done done) {
    char buffer[1024];
    while (!done(text)) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) return;
        pollfd pfd{fd, POLLIN, 0};
        const int ready = ::poll(&pfd, 1, static_cast<int>(left.count()));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) return;
        const ssize_t got = ::read(fd, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return;
        text.append(buffer, static_cast<std::size_t>(got));
    }
}

}  // namespace

void become_subreaper() {
    ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

Tracked Tracked::open(pid_t pid) {
    return Tracked(pid, open_pidfd(pid));
}

Tracked::Tracked(Tracked&& other) noexcept
    : pid_(other.pid_), pidfd_(std::exchange(other.pidfd_, -1)), gone_(other.gone_) {}

Tracked::~Tracked() {
    if (pidfd_ < 0) return;
    if (!gone_) {
        signal(SIGKILL);
        wait_exit(std::chrono::seconds(10));
    }
    // A worker that exited while its parent lived may have been re-parented to us as a zombie
    // since: reap it now (the pidfd names exactly that process), or it would outlive the test.
    siginfo_t info{};
    ::waitid(P_PIDFD, static_cast<id_t>(pidfd_), &info, WEXITED | WNOHANG);
    ::close(pidfd_);
}

void Tracked::signal(int signal_number) const {
    if (pidfd_ >= 0) ::syscall(SYS_pidfd_send_signal, pidfd_, signal_number, nullptr, 0U);
}

bool Tracked::exited() const {
    pollfd pfd{pidfd_, POLLIN, 0};
    return ::poll(&pfd, 1, 0) == 1;
}

std::optional<int> Tracked::wait_exit(std::chrono::milliseconds deadline) {
    pollfd pfd{pidfd_, POLLIN, 0};
    const auto end = Clock::now() + deadline;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
        const int ready = ::poll(&pfd, 1, static_cast<int>(std::max<long>(left.count(), 0)));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) return std::nullopt;
        break;
    }
    gone_ = true;
    // Ours to reap when we are its parent (directly, or as subreaper of an orphan).
    siginfo_t info{};
    if (::waitid(P_PIDFD, static_cast<id_t>(pidfd_), &info, WEXITED) == 0) {
        if (info.si_code == CLD_EXITED) return info.si_status << 8;
        return info.si_status;  // killed by this signal
    }
    return -1;
}

Workload::Workload(const std::vector<std::string>& run_args, bool wait_ready,
                   const std::string& command) {
    become_subreaper();
    int out_pipe[2];
    int err_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
        throw std::runtime_error("pipe failed");
    }
    std::vector<std::string> argv_text{GPUSIM_BIN, command};
    argv_text.insert(argv_text.end(), run_args.begin(), run_args.end());
    std::vector<char*> argv;
    for (std::string& arg : argv_text) argv.push_back(arg.data());
    argv.push_back(nullptr);

    const pid_t child = ::fork();
    if (child < 0) throw std::runtime_error("fork failed");
    if (child == 0) {
        ::dup2(out_pipe[1], STDOUT_FILENO);
        ::dup2(err_pipe[1], STDERR_FILENO);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    stdout_fd_ = out_pipe[0];
    stderr_fd_ = err_pipe[0];
    parent_.emplace(child, open_pidfd(child));
    if (wait_ready) await_ready();
}

bool Workload::await_ready(std::chrono::milliseconds deadline) {
    if (ready_) return true;
    const auto end = Clock::now() + deadline;
    read_until(stdout_fd_, ready_line_, end,
               [](const std::string& text) { return text.find('\n') != std::string::npos; });
    if (ready_line_.find('\n') == std::string::npos) {
        std::string err;
        read_until(stderr_fd_, err, Clock::now() + std::chrono::milliseconds(500),
                   [](const std::string& text) { return text.find('\n') != std::string::npos; });
        failure_ = "no ready line; stdout='" + ready_line_ + "' stderr='" + err + "'";
        return false;
    }
    ready_line_.erase(ready_line_.find('\n'));
    const auto json = nlohmann::json::parse(ready_line_);
    if (json.at("pid").get<pid_t>() != parent_->pid()) {
        failure_ = "ready line names another pid: " + ready_line_;
        return false;
    }
    start_time_ticks_ = json.at("start_time_ticks").get<unsigned long long>();
    // The workers are alive (nothing signals them before readiness) and unreaped, so their
    // pids are theirs while we open the pidfds.
    for (const auto& worker : json.value("workers", nlohmann::json::array())) {
        const pid_t pid = worker.get<pid_t>();
        workers_.emplace_back(pid, open_pidfd(pid));
    }
    ready_ = true;
    return true;
}

std::vector<pid_t> Workload::worker_pids() const {
    std::vector<pid_t> pids;
    for (const Tracked& worker : workers_) pids.push_back(worker.pid());
    return pids;
}

void Workload::kill_workers() {
    for (Tracked& worker : workers_) worker.signal(SIGKILL);
    for (Tracked& worker : workers_) worker.wait_exit(std::chrono::seconds(10));
}

Workload::~Workload() {
    // The parent first: once it is reaped, its workers are orphans re-parented to us (the
    // subreaper), so each one is reaped here instead of lingering as a zombie.
    parent_.reset();
    workers_.clear();
    if (stdout_fd_ >= 0) ::close(stdout_fd_);
    if (stderr_fd_ >= 0) ::close(stderr_fd_);
}

unsigned long long signal_mask(pid_t pid, const std::string& field) {
    std::istringstream status(read_text("/proc/" + std::to_string(pid) + "/status"));
    for (std::string line; std::getline(status, line);) {
        if (line.starts_with(field + ":")) {
            return std::stoull(line.substr(field.size() + 1), nullptr, 16);
        }
    }
    return 0;
}

std::string comm_of(pid_t pid) {
    std::string comm = read_text("/proc/" + std::to_string(pid) + "/comm");
    if (!comm.empty() && comm.back() == '\n') comm.pop_back();
    return comm;
}

std::string argv0_of(pid_t pid) {
    const std::string cmdline = read_text("/proc/" + std::to_string(pid) + "/cmdline");
    return cmdline.substr(0, cmdline.find('\0'));
}

}  // namespace gpusim_test
