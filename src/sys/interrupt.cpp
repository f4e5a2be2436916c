#include "sys/interrupt.hpp"

#include <csignal>

namespace gpukill {
namespace {

volatile std::sig_atomic_t g_caught = 0;

extern "C" void remember_signal(int signal) {
    g_caught = signal;
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
}

InterruptCatcher::~InterruptCatcher() {
    ::sigaction(SIGINT, &previous_int_, nullptr);
    ::sigaction(SIGTERM, &previous_term_, nullptr);
}

bool InterruptCatcher::caught() {
    return g_caught != 0;
}
int InterruptCatcher::signal_caught() {
    return g_caught;
}

}  // namespace gpukill
