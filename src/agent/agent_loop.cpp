#include "agent/agent_loop.hpp"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <utility>

#include "agent/local_channel_server.hpp"
#include "engine/local_channel.hpp"

namespace gpukill::agent {
namespace {

using Steady = std::chrono::steady_clock;

// A descriptor closed when it goes out of scope.
class Fd {
  public:
    explicit Fd(int fd = -1) : fd_(fd) {}
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return fd_; }
    int release() { return std::exchange(fd_, -1); }

  private:
    int fd_;
};

// The policy file's directory, watched: editors replace a file by renaming a new one
// over it, which a watch on the file itself would miss.
struct PolicyWatch {
    Fd fd;
    std::string name;  // the file's name in the watched directory
};

std::unique_ptr<PolicyWatch> watch_policy(const std::string& path, const AgentLog& log) {
    const std::filesystem::path file(path);
    Fd fd(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
    if (fd.get() < 0) {
        log(fmt::format("note: policy changes are not watched ({}); SIGHUP reloads it",
                        std::strerror(errno)));
        return nullptr;
    }
    std::string dir = file.parent_path().string();
    if (dir.empty()) dir = ".";
    if (::inotify_add_watch(fd.get(), dir.c_str(),
                            IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_ATTRIB) < 0) {
        log(fmt::format("note: policy changes in {} are not watched ({}); SIGHUP reloads it", dir,
                        std::strerror(errno)));
        return nullptr;
    }
    return std::unique_ptr<PolicyWatch>(
        new PolicyWatch{Fd(fd.release()), file.filename().string()});
}

// Whether the inotify events read now name the policy file.
bool policy_touched(const PolicyWatch& watch) {
    alignas(inotify_event) std::array<char, 4096> buffer{};
    bool touched = false;
    for (;;) {
        const ssize_t n = ::read(watch.fd.get(), buffer.data(), buffer.size());
        if (n <= 0) break;
        for (ssize_t at = 0; at < n;) {
            const auto* event = reinterpret_cast<const inotify_event*>(buffer.data() + at);
            if (event->len > 0 && watch.name == event->name) touched = true;
            at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
        }
    }
    return touched;
}

Steady::duration steady_seconds(double value) {
    return std::chrono::duration_cast<Steady::duration>(std::chrono::duration<double>(value));
}

}  // namespace

Result<void> run_agent(std::unique_ptr<engine::Engine> engine, AgentOptions options, AgentLog log) {
    if (!(options.interval_seconds >= 0.001 && options.interval_seconds <= 86400)) {
        return fail(ErrorCategory::invalid_input,
                    "--interval must be between 0.001 and 86400 seconds");
    }
    if (!(options.rogue_interval_seconds >= 0 && options.rogue_interval_seconds <= 86400 * 365.0)) {
        return fail(ErrorCategory::invalid_input, "--rogue-interval must be 0 (off) or more");
    }
    // A client that goes away mid-answer is an error on that connection (EPIPE), never
    // the end of the agent.
    ::signal(SIGPIPE, SIG_IGN);
    // The stop and reload signals go to the signalfd below, never to a handler: blocked
    // before any thread starts, so every thread inherits the mask.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    Fd signal_fd(::signalfd(-1, &signals, SFD_NONBLOCK | SFD_CLOEXEC));
    if (signal_fd.get() < 0) {
        return fail(ErrorCategory::internal, fmt::format("signalfd: {}", std::strerror(errno)));
    }

    AgentCore core(std::move(engine), options.metrics, log);
    std::unique_ptr<PolicyWatch> watch;
    if (options.guard) {
        if (auto started = core.start_guard(std::move(*options.guard), options.guard_actor);
            !started) {
            return std::unexpected(started.error());
        }
        watch = watch_policy(*core.policy_path(), log);
    } else {
        log("no guard policy: sampling and serving only");
    }

    auto server = AgentServer::start(options.server, core);
    if (!server) return std::unexpected(server.error());
    // Root's requests from this host: let go of the GPUs for a reset (docs/AGENT.md).
    std::unique_ptr<LocalChannelServer> local_channel;
    const std::string socket = engine::local_channel_path(
        core.with_engine([](engine::Engine& e) { return e.config().state_dir; }));
    if (auto started = LocalChannelServer::start(socket, core)) {
        local_channel = std::move(*started);
        log(fmt::format("local channel on {} (root only)", socket));
    } else {
        log(
            fmt::format("note: no local channel ({}): `gpukill reset` on this host cannot ask "
                        "the agent to let go of the GPUs",
                        started.error().what));
    }

    const auto wall_now = [&] {
        return core.with_engine([](engine::Engine& e) { return e.now(); });
    };
    const Steady::duration interval = steady_seconds(options.interval_seconds);
    const Steady::time_point started = Steady::now();
    Steady::time_point next_sample = started;
    Steady::time_point next_guard = started;
    Steady::time_point next_rogue = started;
    const auto take_sample = [&] {
        const Steady::time_point now = Steady::now();
        // A local client is resetting a GPU with the driver session let go: no GPU to read,
        // and the engine is busy until it is done. The last sample's /metrics stay served.
        if (core.driver_released()) {
            next_sample = now + interval;
            return;
        }
        const bool run_guard = core.guard_enabled() && now >= next_guard;
        const bool scan_rogue = options.rogue_interval_seconds > 0 && now >= next_rogue;
        core.sample(wall_now(), run_guard, scan_rogue);
        if (run_guard) {
            next_guard = now + core.guard_interval().value_or(std::chrono::seconds(30));
        }
        if (scan_rogue) next_rogue = now + steady_seconds(options.rogue_interval_seconds);
        // On the interval's grid; a sample that overran skips the slots it missed.
        next_sample += interval;
        if (next_sample <= Steady::now()) {
            const auto behind = Steady::now() - next_sample;
            next_sample += interval * (behind / interval + 1);
        }
    };
    take_sample();

    const bool tls = (*server)->tls();
    const std::string& host = options.server.listen.host;
    const std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    log(fmt::format("listening on {}://{}:{}", tls ? "https" : "http", shown, (*server)->port()));
    std::uint64_t watchdog_usec = 0;
    const bool watchdog = sd_watchdog_enabled(0, &watchdog_usec) > 0 && watchdog_usec > 0;
    sd_notifyf(0, "READY=1\nSTATUS=serving on port %d", (*server)->port());
    Steady::time_point next_watchdog = Steady::now();
    // When to read a policy edit; max while none is pending (a time point, not an
    // optional: GCC 12 at -O2 warns of an optional read uninitialised here).
    Steady::time_point reload_at = Steady::time_point::max();

    for (;;) {
        Steady::time_point wake = next_sample;
        if (watchdog) wake = std::min(wake, next_watchdog);
        wake = std::min(wake, reload_at);
        const auto wait =
            std::chrono::duration_cast<std::chrono::milliseconds>(wake - Steady::now());
        std::array<pollfd, 2> fds{pollfd{signal_fd.get(), POLLIN, 0},
                                  pollfd{watch ? watch->fd.get() : -1, POLLIN, 0}};
        const int timeout = static_cast<int>(std::max<std::int64_t>(0, wait.count() + 1));
        if (::poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) {
            log(fmt::format("poll: {}", std::strerror(errno)));
        }
        if ((fds[0].revents & POLLIN) != 0) {
            signalfd_siginfo info{};
            bool stop = false;
            while (::read(signal_fd.get(), &info, sizeof info) == sizeof info) {
                if (info.ssi_signo == SIGHUP) {
                    log("SIGHUP: reading the policy again");
                    core.reload_policy();
                } else {
                    stop = true;
                }
            }
            if (stop) break;
        }
        // An edit is read once the file has been quiet for a moment: a write that
        // truncates first is not read half-done.
        if ((fds[1].revents & POLLIN) != 0 && policy_touched(*watch)) {
            reload_at = Steady::now() + std::chrono::milliseconds(250);
        }
        if (Steady::now() >= reload_at) {
            reload_at = Steady::time_point::max();
            core.reload_policy_if_changed();
        }
        if (watchdog && Steady::now() >= next_watchdog) {
            sd_notify(0, "WATCHDOG=1");
            next_watchdog = Steady::now() + std::chrono::microseconds(watchdog_usec / 2);
        }
        if (Steady::now() >= next_sample) take_sample();
    }
    log("stopping: finishing the requests in progress");
    sd_notify(0, "STOPPING=1");
    local_channel.reset();
    (*server)->stop();
    log("stopped");
    return {};
}

}  // namespace gpukill::agent
