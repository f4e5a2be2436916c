#include "reclaim/exit_waiter.hpp"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <thread>

namespace gpukill::reclaim {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kProgressInterval{200};
constexpr milliseconds kFallbackCheckInterval{20};

// Milliseconds for poll(), rounded up so a wait never ends just before `until` and spins.
int poll_timeout(Clock::time_point now, Clock::time_point until) {
    if (until <= now) return 0;
    const auto ms = std::chrono::ceil<milliseconds>(until - now).count();
    return static_cast<int>(std::min<decltype(ms)>(ms, 60'000));
}

double seconds_between(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double>(to - from).count();
}

}  // namespace

void wait_for_exits(std::vector<WaitEntry>& entries, Clock::time_point deadline,
                    const HostRoots& roots, const WaitProgress& progress,
                    const std::function<bool()>& stop) {
    std::vector<pollfd> fds;
    std::vector<std::size_t> fd_owner;  // index into entries for each pollfd
    std::vector<std::size_t> unpollable;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (entries[i].exited_at) continue;
        if (entries[i].process->pidfd) {
            fds.push_back(pollfd{.fd = entries[i].process->pidfd.get(), .events = POLLIN});
            fd_owner.push_back(i);
        } else {
            unpollable.push_back(i);
        }
    }
    std::size_t left = fds.size() + unpollable.size();
    Clock::time_point next_progress = Clock::now();

    // Checks /proc for the entries without pidfd (and, after a failed poll, for all).
    auto check_by_proc = [&](const std::vector<std::size_t>& which, Clock::time_point now) {
        for (std::size_t i : which) {
            WaitEntry& entry = entries[i];
            if (entry.exited_at || live_state(entry.process->identity, roots)) continue;
            entry.exited_at = now;
            --left;
        }
    };

    while (left > 0) {
        if (stop && stop()) return;
        Clock::time_point now = Clock::now();
        if (progress && now >= next_progress) {
            progress(left, std::max(0.0, seconds_between(now, deadline)));
            next_progress = now + kProgressInterval;
        }
        if (now >= deadline) return;
        Clock::time_point wake = deadline;
        if (progress) wake = std::min(wake, next_progress);
        if (!unpollable.empty()) wake = std::min(wake, now + kFallbackCheckInterval);

        // Exited pidfds are set to -1 below, which poll() skips.
        const int ready = ::poll(fds.data(), fds.size(), poll_timeout(now, wake));
        now = Clock::now();
        if (ready < 0 && errno != EINTR) {
            // poll failed (ENOMEM): check /proc for everyone instead, paced like the
            // fallback so a failure that persists does not spin.
            check_by_proc(fd_owner, now);
            for (std::size_t k = 0; k < fds.size(); ++k) {
                if (entries[fd_owner[k]].exited_at) fds[k].fd = -1;
            }
            std::this_thread::sleep_until(std::min(wake, now + kFallbackCheckInterval));
        }
        for (std::size_t k = 0; ready > 0 && k < fds.size(); ++k) {
            if (fds[k].fd < 0 || fds[k].revents == 0) continue;
            entries[fd_owner[k]].exited_at = now;
            fds[k].fd = -1;
            --left;
        }
        check_by_proc(unpollable, now);
    }
}

}  // namespace gpukill::reclaim
