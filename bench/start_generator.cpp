// A busy node's process churn, for the benchmarks: starts RATE short-lived processes a
// second (fork, exec /bin/true, reaped), on an absolute schedule so a slow start does not
// lower the rate, until SIGTERM or SIGINT. Each start is a fork, an exec and an exit: the
// three process events a training node's DataLoader workers, exec probes and cron make.
// Prints the starts it made and the rate it achieved when stopped.
// Usage: gpukill_start_generator RATE
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace {

volatile sig_atomic_t stop_requested = 0;

void request_stop(int) {
    stop_requested = 1;
}

double seconds_between(const timespec& a, const timespec& b) {
    return static_cast<double>(b.tv_sec - a.tv_sec) +
           static_cast<double>(b.tv_nsec - a.tv_nsec) / 1e9;
}

void reap_finished() {
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
}

}  // namespace

int main(int argc, char** argv) {
    const double rate = argc == 2 ? std::strtod(argv[1], nullptr) : -1;
    if (!(rate >= 0 && rate <= 10000)) {
        std::fprintf(stderr, "usage: gpukill_start_generator RATE (starts a second, 0-10000)\n");
        return 3;
    }
    struct sigaction stop {};
    stop.sa_handler = request_stop;
    ::sigaction(SIGTERM, &stop, nullptr);
    ::sigaction(SIGINT, &stop, nullptr);
    std::printf("ready\n");
    std::fflush(stdout);
    timespec started{};
    ::clock_gettime(CLOCK_MONOTONIC, &started);
    long starts = 0;
    if (rate == 0) {
        while (!stop_requested) ::pause();
    } else {
        const long period_ns = static_cast<long>(1e9 / rate);
        timespec next = started;
        while (!stop_requested) {
            next.tv_nsec += period_ns;
            while (next.tv_nsec >= 1000000000L) {
                next.tv_nsec -= 1000000000L;
                ++next.tv_sec;
            }
            while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr) == EINTR) {
                if (stop_requested) break;
            }
            if (stop_requested) break;
            const pid_t child = ::fork();
            if (child == 0) {
                ::execl("/bin/true", "true", static_cast<char*>(nullptr));
                ::_exit(127);
            }
            if (child > 0) ++starts;
            reap_finished();
        }
    }
    timespec ended{};
    ::clock_gettime(CLOCK_MONOTONIC, &ended);
    while (::wait(nullptr) > 0) {
    }
    const double elapsed = seconds_between(started, ended);
    std::printf("%ld starts in %.1f s: %.1f a second\n", starts, elapsed,
                elapsed > 0 ? static_cast<double>(starts) / elapsed : 0.0);
    return 0;
}
