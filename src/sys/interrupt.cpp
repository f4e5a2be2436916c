#include "sys/interrupt.hpp"

#include <poll.h>
#include <pthread.h>

#include <cerrno>
#include <csignal>

namespace gpukill {
namespace {

volatile std::sig_atomic_t g_caught = 0;

extern "C" void remember_signal(int signal) {
    g_caught = signal;
}

sigset_t caught_signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    return set;
}

}  // namespace

InterruptCatcher::InterruptCatcher() {
    g_caught = 0;
    struct sigaction action {};
    action.sa_handler = remember_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    ::sigaction(SIGINT, &action, &previous_int_);
    ::sigaction(SIGTERM, &action, &previous_term_);
    ::sigaction(SIGHUP, &action, &previous_hup_);
}

InterruptCatcher::~InterruptCatcher() {
    ::sigaction(SIGINT, &previous_int_, nullptr);
    ::sigaction(SIGTERM, &previous_term_, nullptr);
    ::sigaction(SIGHUP, &previous_hup_, nullptr);
}

bool InterruptCatcher::caught() {
    return g_caught != 0;
}
int InterruptCatcher::signal_caught() {
    return g_caught;
}

bool InterruptCatcher::wait_readable(int fd) {
    const sigset_t signals = caught_signals();
    sigset_t previous;
    pthread_sigmask(SIG_BLOCK, &signals, &previous);
    bool ready = false;
    if (!caught()) {
        // `previous` without the three: they are delivered during the wait alone.
        sigset_t during = previous;
        sigdelset(&during, SIGINT);
        sigdelset(&during, SIGTERM);
        sigdelset(&during, SIGHUP);
        pollfd entry{.fd = fd, .events = POLLIN, .revents = 0};
        int result = 0;
        do {
            result = ::ppoll(&entry, 1, nullptr, &during);
        } while (result < 0 && errno == EINTR && !caught());
        ready = result > 0;
    }
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return ready;
}

}  // namespace gpukill
