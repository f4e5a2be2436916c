#include "population_child.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>

namespace gpukill::bench {
namespace {

// The kinds of fd a long-running service or training job typically holds. Each
// child opens them round-robin until it has its share.
enum Step : std::int32_t {
    kSetpgid,
    kDevNull,
    kPipe,
    kSocketPair,
    kTcpSocket,
    kDataRead,
    kEventfd,
    kUdpSocket,
    kDataWrite,
    kEpoll,
    kTimerfd,
    kUrandom,
    kDirectory,
    kDevice,
    kStepCount,
};

constexpr Step kCycle[] = {kPipe,      kSocketPair, kTcpSocket, kDataRead, kEventfd, kUdpSocket,
                           kDataWrite, kEpoll,      kTimerfd,   kDevNull,  kUrandom, kDirectory};

[[noreturn]] void fail(const ChildSpec& spec, Step step) {
    const ChildReport report{step, errno};
    // A short write to a pipe of a record under PIPE_BUF is atomic; nothing to retry.
    [[maybe_unused]] const ssize_t n = ::write(spec.ready_fd, &report, sizeof report);
    ::_exit(1);
}

// Closes every inherited fd from 3 up except the two the child keeps.
void close_inherited(int keep_a, int keep_b) {
    const int low = keep_a < keep_b ? keep_a : keep_b;
    const int high = keep_a < keep_b ? keep_b : keep_a;
    if (low > 3) ::close_range(3, static_cast<unsigned>(low - 1), 0);
    if (high > low + 1) {
        ::close_range(static_cast<unsigned>(low + 1), static_cast<unsigned>(high - 1), 0);
    }
    ::close_range(static_cast<unsigned>(high + 1), ~0U, 0);
}

// Opens one fd (two for pipes and socket pairs); returns how many, or -1 with errno.
int open_kind(const ChildSpec& spec, Step step) {
    int pair[2];
    switch (step) {
        case kPipe:
            return ::pipe(pair) == 0 ? 2 : -1;
        case kSocketPair:
            return ::socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0 ? 2 : -1;
        case kTcpSocket:
            return ::socket(AF_INET, SOCK_STREAM, 0) >= 0 ? 1 : -1;
        case kUdpSocket:
            return ::socket(AF_INET, SOCK_DGRAM, 0) >= 0 ? 1 : -1;
        case kDataRead:
            return ::open(spec.data_file, O_RDONLY) >= 0 ? 1 : -1;
        case kDataWrite:
            return ::open(spec.data_file, O_WRONLY | O_APPEND) >= 0 ? 1 : -1;
        case kEventfd:
            return ::eventfd(0, 0) >= 0 ? 1 : -1;
        case kEpoll:
            return ::epoll_create1(0) >= 0 ? 1 : -1;
        case kTimerfd:
            return ::timerfd_create(CLOCK_MONOTONIC, 0) >= 0 ? 1 : -1;
        case kDevNull:
            return ::open("/dev/null", O_WRONLY) >= 0 ? 1 : -1;
        case kUrandom:
            return ::open("/dev/urandom", O_RDONLY) >= 0 ? 1 : -1;
        case kDirectory:
            return ::open(spec.directory, O_RDONLY | O_DIRECTORY) >= 0 ? 1 : -1;
        default:
            errno = EINVAL;
            return -1;
    }
}

}  // namespace

void run_child(const ChildSpec& spec) {
    // The parent's handlers only set its flag; here they would make the child deaf to
    // the signals. The group is separate from the terminal's, so Ctrl-C reaches only
    // the parent, which then kills the group itself.
    constexpr int kHandled[] = {SIGINT, SIGTERM, SIGHUP};
    for (int signo : kHandled) ::signal(signo, SIG_DFL);
    if (::setpgid(0, spec.pgid) != 0) fail(spec, kSetpgid);

    close_inherited(spec.release_fd, spec.ready_fd);
    const int null_fd = ::open("/dev/null", O_RDWR);
    if (null_fd < 0) fail(spec, kDevNull);
    for (int target = 0; target <= 2; ++target) {
        if (null_fd != target && ::dup2(null_fd, target) < 0) fail(spec, kDevNull);
    }
    if (null_fd > 2) ::close(null_fd);

    std::size_t open_fds = 4;  // 0, 1, 2 and release_fd; ready_fd is closed below
    for (std::size_t i = 0; open_fds < spec.fds; ++i) {
        const Step step = kCycle[i % (sizeof kCycle / sizeof kCycle[0])];
        const int opened = open_kind(spec, step);
        if (opened < 0) fail(spec, step);
        open_fds += static_cast<std::size_t>(opened);
    }
    for (std::size_t i = 0; i < spec.device_count; ++i) {
        if (::open(spec.devices[i], O_RDWR) < 0) fail(spec, kDevice);
    }

    const ChildReport ready{};
    if (::write(spec.ready_fd, &ready, sizeof ready) != sizeof ready) ::_exit(1);
    ::close(spec.ready_fd);

    // Sleep without CPU until the parent closes its end (EOF) or kills the group.
    char byte = 0;
    while (true) {
        const ssize_t n = ::read(spec.release_fd, &byte, 1);
        if (n == 0 || (n < 0 && errno != EINTR)) ::_exit(0);
    }
}

const char* child_step_name(std::int32_t step) {
    static constexpr const char* kNames[kStepCount] = {
        "setpgid",        "open /dev/null",  "pipe",
        "socketpair",     "socket (TCP)",    "open data file",
        "eventfd",        "socket (UDP)",    "open data file for writing",
        "epoll_create1",  "timerfd_create",  "open /dev/urandom",
        "open directory", "open device file"};
    if (step < 0 || step >= kStepCount) return "unknown step";
    return kNames[step];
}

}  // namespace gpukill::bench
