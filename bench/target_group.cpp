#include "target_group.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <stdexcept>

#include "interrupt.hpp"
#include "os_failure.hpp"
#include "subprocess.hpp"
#include "timing.hpp"

namespace gpukill::bench {
namespace {

// Runs `start` with the benchmark's interrupt signals blocked in the calling thread, so
// a thread it creates inherits the mask: Ctrl-C must interrupt the main thread's blocking
// calls (interrupt.hpp), not the reaper's waitid().
template <typename Start>
void with_interrupts_blocked(Start&& start) {
    sigset_t blocked;
    sigset_t previous;
    sigemptyset(&blocked);
    for (int signo : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&blocked, signo);
    ::pthread_sigmask(SIG_BLOCK, &blocked, &previous);
    try {
        start();
    } catch (...) {
        ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
        throw;
    }
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

}  // namespace

bool killed_by(const TargetExit& exit, int signal) {
    return (exit.code == CLD_KILLED || exit.code == CLD_DUMPED) && exit.status == signal;
}

std::string describe(const TargetExit& exit) {
    if (exit.code == CLD_EXITED) return "exit " + std::to_string(exit.status);
    const char* name = ::sigabbrev_np(exit.status);
    return std::string("killed by ") +
           (name != nullptr ? std::string("SIG") + name : "signal " + std::to_string(exit.status));
}

TargetGroup::TargetGroup() {
    // The keeper: an idle member that founds the group (pgid 0) and is never a target.
    int ready[2];
    if (::pipe2(ready, O_CLOEXEC) != 0) throw os_failure("pipe", errno);
    const ScopedFd ready_read(ready[0]);
    ScopedFd ready_write(ready[1]);
    const TargetChildSpec spec{.parent = ::getpid(), .pgid = 0, .ready_fd = ready_write.get()};
    const pid_t keeper = ::fork();
    if (keeper < 0) throw os_failure("fork", errno);
    if (keeper == 0) run_idle_target(spec);
    ::setpgid(keeper, keeper);  // also done by the keeper; whichever runs first
    pgid_ = keeper;
    members_.insert(keeper);
    ready_write.reset();

    char byte = 0;
    ssize_t n = 0;
    while ((n = ::read(ready_read.get(), &byte, 1)) < 0 && errno == EINTR) {
    }
    try {
        if (n != 1) throw std::runtime_error("the keeper process failed to start");
        with_interrupts_blocked([this] { reaper_ = std::thread([this] { reap_loop(); }); });
    } catch (...) {
        ::kill(keeper, SIGKILL);  // unreaped child of ours: the PID is still its own
        while (::waitpid(keeper, nullptr, 0) < 0 && errno == EINTR) {
        }
        throw;
    }
}

TargetGroup::~TargetGroup() {
    {
        const std::lock_guard lock(mutex_);
        // Every PID here is unreaped, and reaping takes this mutex: none can be recycled.
        for (pid_t pid : members_) ::kill(pid, SIGKILL);
    }
    // The reaper reaps them all, the keeper included, then waitid fails with ECHILD.
    reaper_.join();
    // A child that died before joining the group is not the reaper's to see.
    for (pid_t pid : members_) {
        while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
        }
    }
}

void TargetGroup::reap_loop() {
    while (true) {
        // WNOWAIT: learn who exited without reaping, so that reaping happens under the
        // mutex below and the destructor never signals a PID that was just freed.
        siginfo_t info{};
        if (::waitid(P_PGID, static_cast<id_t>(pgid_), &info, WEXITED | WNOWAIT) != 0) {
            if (errno == EINTR) continue;
            return;  // ECHILD: no member of the group is left
        }
        const double seen_s = clock_s(CLOCK_MONOTONIC);
        const pid_t pid = info.si_pid;
        {
            const std::lock_guard lock(mutex_);
            siginfo_t reaped{};
            while (::waitid(P_PID, static_cast<id_t>(pid), &reaped, WEXITED) != 0 &&
                   errno == EINTR) {
            }
            members_.erase(pid);
            exits_[pid] =
                TargetExit{.code = info.si_code, .status = info.si_status, .at_s = seen_s};
        }
        reaped_.notify_all();
    }
}

pid_t TargetGroup::fork_member(const TargetChildSpec& spec, bool exec) {
    // Held across fork and registration: the reaper cannot reap the new child before it is
    // a member, and a record left by an earlier member with the same (recycled) PID is
    // dropped before anyone can mistake it for this one's exit.
    const std::lock_guard lock(mutex_);
    const pid_t pid = ::fork();
    if (pid < 0) throw os_failure("fork (raise ulimit -u or the pids cgroup limit)", errno);
    if (pid == 0) {
        if (exec) exec_target(spec);
        run_idle_target(spec);
    }
    // Also done by the child: whichever runs first. After the child's exec this fails
    // with EACCES, by which time the child has joined by itself.
    ::setpgid(pid, pgid_);
    exits_.erase(pid);
    members_.insert(pid);
    return pid;
}

std::vector<pid_t> TargetGroup::start_idle(std::size_t count, OnTerm on_term) {
    int ready[2];
    if (::pipe2(ready, O_CLOEXEC) != 0) throw os_failure("pipe", errno);
    const ScopedFd ready_read(ready[0]);
    ScopedFd ready_write(ready[1]);
    const TargetChildSpec spec{
        .parent = ::getpid(), .pgid = pgid_, .on_term = on_term, .ready_fd = ready_write.get()};

    std::vector<pid_t> pids;
    for (std::size_t i = 0; i < count; ++i) {
        throw_if_interrupted();
        pids.push_back(fork_member(spec, false));
    }
    // Only the children hold the write end now: EOF once each has written or died.
    ready_write.reset();
    std::size_t ready_count = 0;
    char buffer[256];
    while (true) {
        const ssize_t n = ::read(ready_read.get(), buffer, sizeof buffer);
        if (n == 0) break;
        if (n < 0) {
            if (errno != EINTR) throw os_failure("reading the targets' readiness", errno);
            throw_if_interrupted();
            continue;
        }
        ready_count += static_cast<std::size_t>(n);
    }
    if (ready_count != count) {
        throw std::runtime_error(std::to_string(count - ready_count) + " of " +
                                 std::to_string(count) + " target processes failed to start");
    }
    return pids;
}

SpawnedTarget TargetGroup::spawn(const std::vector<std::string>& argv,
                                 const std::vector<std::string>& envp) {
    int output[2];
    if (::pipe2(output, O_CLOEXEC) != 0) throw os_failure("pipe", errno);
    SpawnedTarget target{.pid = 0, .output = ScopedFd(output[0])};
    const ScopedFd output_write(output[1]);
    // Prepared before fork: the child may not allocate.
    const auto args = argv_pointers(argv);
    const auto env = argv_pointers(envp);
    const TargetChildSpec spec{.parent = ::getpid(),
                               .pgid = pgid_,
                               .on_term = OnTerm::exit,
                               .output_fd = output_write.get(),
                               .argv = args.data(),
                               .envp = env.data()};
    target.pid = fork_member(spec, true);
    return target;
}

std::vector<pid_t> TargetGroup::await_exits(const std::vector<pid_t>& pids, double timeout_s) {
    using namespace std::chrono;
    const auto deadline =
        steady_clock::now() + duration_cast<steady_clock::duration>(duration<double>(timeout_s));
    std::unique_lock lock(mutex_);
    auto missing = [&] {
        std::vector<pid_t> left;
        for (pid_t pid : pids) {
            if (!exits_.contains(pid)) left.push_back(pid);
        }
        return left;
    };
    for (auto left = missing(); !left.empty(); left = missing()) {
        if (steady_clock::now() >= deadline) return left;
        // In slices, so that Ctrl-C is noticed even though the reaper signals nothing.
        reaped_.wait_until(lock, std::min(deadline, steady_clock::now() + milliseconds(50)));
        if (interrupt_signal() != 0) {
            lock.unlock();
            throw_if_interrupted();
        }
    }
    return {};
}

std::optional<TargetExit> TargetGroup::exit_of(pid_t pid) const {
    const std::lock_guard lock(mutex_);
    const auto it = exits_.find(pid);
    if (it == exits_.end()) return std::nullopt;
    return it->second;
}

void TargetGroup::kill_member(pid_t pid) {
    const std::lock_guard lock(mutex_);
    if (pid != pgid_ && members_.contains(pid)) ::kill(pid, SIGKILL);
}

void TargetGroup::forget(const std::vector<pid_t>& pids) {
    const std::lock_guard lock(mutex_);
    for (pid_t pid : pids) exits_.erase(pid);
}

}  // namespace gpukill::bench
