// Child processes the execution tests start, signal and reap. Every child is the test's
// own; the guard SIGKILLs and reaps whatever is left when it goes out of scope, so a
// failing assertion never leaves a process behind. No sleeping for luck: start() returns
// once the child has written a byte after installing its signal dispositions.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <set>
#include <stdexcept>

#include "host/proc_reader.hpp"
#include "model/process.hpp"

namespace gpukill::reclaim_test {

enum class Behaviour {
    cooperative,    // default SIGTERM: dies at once
    ignores_term,   // SIGTERM ignored; only SIGKILL ends it
    slow_term,      // exits 0.3 s after SIGTERM (a handler that cleans up)
    exits_at_once,  // exits right after saying it is ready
};

namespace detail {
inline void exit_after_cleanup(int) {
    timespec cleanup{0, 300'000'000};
    ::nanosleep(&cleanup, nullptr);  // async-signal-safe, as is _exit
    ::_exit(0);
}
}  // namespace detail

class Children {
  public:
    Children() = default;
    Children(const Children&) = delete;
    Children& operator=(const Children&) = delete;
    ~Children() {
        for (pid_t pid : running_) {
            ::kill(pid, SIGKILL);  // our own child, started by start()
            int status = 0;
            while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
        }
    }

    pid_t start(Behaviour behaviour) {
        int ready[2];
        if (::pipe2(ready, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
        const pid_t parent = ::getpid();
        const pid_t pid = ::fork();
        if (pid < 0) throw std::runtime_error("fork failed");
        if (pid == 0) run_child(behaviour, ready, parent);
        running_.insert(pid);
        ::close(ready[1]);
        char byte = 0;
        ssize_t n = 0;
        while ((n = ::read(ready[0], &byte, 1)) < 0 && errno == EINTR) {
        }
        ::close(ready[0]);
        if (n != 1) throw std::runtime_error("child did not start");
        return pid;
    }

    // The identity a plan would hold for it.
    static ProcessIdentity identity(pid_t pid) {
        auto start = read_start_time(HostRoots{}, pid);
        if (!start) throw std::runtime_error(start.error().what);
        return {pid, *start};
    }

    // SIGSTOP, returning once the kernel reports it stopped.
    void stop(pid_t pid) {
        ::kill(pid, SIGSTOP);
        int status = 0;
        while (::waitpid(pid, &status, WUNTRACED) < 0 && errno == EINTR) {
        }
        if (!WIFSTOPPED(status)) throw std::runtime_error("child did not stop");
    }

    // Blocks until the child has exited, leaving it a zombie (not reaped).
    static void wait_until_exited(pid_t pid) {
        siginfo_t info{};
        while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) < 0 &&
               errno == EINTR) {
        }
    }

    // Whether the child has not exited (a stopped child is alive).
    static bool alive(pid_t pid) {
        siginfo_t info{};
        ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
        return info.si_pid == 0;
    }

    // Reaps the child (blocking) and returns its wait status.
    int reap(pid_t pid) {
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        running_.erase(pid);
        return status;
    }

  private:
    [[noreturn]] static void run_child(Behaviour behaviour, const int ready[2], pid_t parent) {
        // Only async-signal-safe calls from here: the parent may have threads.
        ::close(ready[0]);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive a crashed test
        if (::getppid() != parent) ::_exit(1);
        sigset_t none;
        ::sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        struct sigaction action {};
        action.sa_handler = SIG_DFL;
        if (behaviour == Behaviour::ignores_term) action.sa_handler = SIG_IGN;
        if (behaviour == Behaviour::slow_term) action.sa_handler = detail::exit_after_cleanup;
        ::sigaction(SIGTERM, &action, nullptr);
        if (::write(ready[1], "r", 1) != 1) ::_exit(2);
        if (behaviour == Behaviour::exits_at_once) ::_exit(0);
        while (true) ::pause();
    }

    std::set<pid_t> running_;
};

}  // namespace gpukill::reclaim_test
