#include "cli/stop_signals.hpp"

#include <sys/wait.h>
#include <time.h>

#include <cerrno>
#include <cmath>
#include <csignal>

namespace gpusim {

namespace {

volatile std::sig_atomic_t g_stop_requested = 0;

void on_stop(int) {
    g_stop_requested = 1;
}

// Only there so SIGCHLD interrupts sigsuspend (its default action is to be discarded).
void on_child(int) {}

void set_handler(int signal_number, void (*handler)(int), int flags) {
    struct sigaction action {};
    action.sa_handler = handler;
    action.sa_flags = flags;
    sigemptyset(&action.sa_mask);
    ::sigaction(signal_number, &action, nullptr);
}

}  // namespace

StopSignals::StopSignals() {
    sigset_t stop_set;
    sigemptyset(&stop_set);
    sigaddset(&stop_set, SIGTERM);
    sigaddset(&stop_set, SIGINT);
    sigaddset(&stop_set, SIGCHLD);
    ::sigprocmask(SIG_BLOCK, &stop_set, &wait_mask_);
    // While asleep, the mask is what it was before: those three get through.
    sigdelset(&wait_mask_, SIGTERM);
    sigdelset(&wait_mask_, SIGINT);
    sigdelset(&wait_mask_, SIGCHLD);
}

void StopSignals::install(bool ignore_term) {
    set_handler(SIGTERM, ignore_term ? SIG_IGN : on_stop, 0);
    set_handler(SIGINT, on_stop, 0);
    set_handler(SIGCHLD, on_child, SA_NOCLDSTOP);
}

void StopSignals::wait_for_stop(bool reap) const {
    while (g_stop_requested == 0) {
        ::sigsuspend(&wait_mask_);
        // Like a DataLoader parent, reap workers that died so they do not linger as zombies.
        while (reap && ::waitpid(-1, nullptr, WNOHANG) > 0) {
        }
    }
}

void linger(double seconds) {
    if (!(seconds > 0)) return;
    timespec deadline{};
    ::clock_gettime(CLOCK_MONOTONIC, &deadline);
    const double whole = std::floor(seconds);
    deadline.tv_sec += static_cast<time_t>(whole);
    deadline.tv_nsec += static_cast<long>((seconds - whole) * 1e9);
    if (deadline.tv_nsec >= 1'000'000'000L) {
        deadline.tv_sec += 1;
        deadline.tv_nsec -= 1'000'000'000L;
    }
    while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nullptr) == EINTR) {
    }
}

}  // namespace gpusim
