#include "cli/watch.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace gpukill::cli {

int watch_until_interrupted(const WatchOptions& options, const FrameFn& frame) {
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    if (options.on_hangup) sigaddset(&stop_signals, SIGHUP);
    sigset_t previous;
    pthread_sigmask(SIG_BLOCK, &stop_signals, &previous);

    int result = 0;
    for (;;) {
        std::string text;
        if (int code = frame(text); code != 0) {
            result = code;
            break;
        }
        // Home, clear to end of screen: redraw without the flicker of a full clear.
        if (options.clear_screen) std::fputs("\x1b[H\x1b[2J", stdout);
        std::fputs(text.c_str(), stdout);
        std::fflush(stdout);
        // Frames nobody can read (a full disk): stop; finish_stdout reports it.
        if (std::ferror(stdout)) break;

        double whole = 0;
        double fraction = std::modf(options.interval_seconds, &whole);
        timespec timeout{static_cast<time_t>(whole), static_cast<long>(fraction * 1e9)};
        int received = sigtimedwait(&stop_signals, nullptr, &timeout);
        if (received == SIGINT || received == SIGTERM) break;
        if (received == SIGHUP) options.on_hangup();
        // EAGAIN: the interval passed; EINTR: another signal, take the next frame.
    }
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return result;
}

}  // namespace gpukill::cli
