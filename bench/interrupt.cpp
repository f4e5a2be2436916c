#include "interrupt.hpp"

#include <signal.h>

#include <csignal>

namespace gpukill::bench {
namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_signal(int signo) {
    g_signal = signo;
}

}  // namespace

void install_interrupt_handlers() {
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: blocking calls must wake up and see the flag
    constexpr int kHandled[] = {SIGINT, SIGTERM, SIGHUP};
    for (int signo : kHandled) ::sigaction(signo, &action, nullptr);
}

int interrupt_signal() {
    return g_signal;
}

void throw_if_interrupted() {
    if (g_signal != 0) throw Interrupted();
}

}  // namespace gpukill::bench
