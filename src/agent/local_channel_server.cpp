#include "agent/local_channel_server.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>

#include "engine/list.hpp"
#include "engine/local_channel.hpp"
#include "model/human_format.hpp"
#include "model/json_text.hpp"
#include "model/snapshot_json.hpp"

namespace gpukill::agent {
namespace {

using Steady = std::chrono::steady_clock;

constexpr auto kLocalIdle = std::chrono::seconds(10);
constexpr std::size_t kMaxLocalReason = 200;

sys::Deadline local_deadline_in(double seconds) {
    return Steady::now() +
           std::chrono::duration_cast<Steady::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace

Result<std::unique_ptr<LocalChannelServer>> LocalChannelServer::start(const std::string& path,
                                                                      AgentCore& core) {
    if (auto made = engine::make_local_channel_directory(path); !made) {
        return std::unexpected(made.error());
    }
    auto listener = sys::listen_local(path);
    if (!listener) return std::unexpected(listener.error());
    int pipe_fds[2] = {-1, -1};
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
        ::unlink(path.c_str());
        return std::unexpected(os_error("pipe2", errno));
    }
    std::unique_ptr<LocalChannelServer> server(new LocalChannelServer(
        path, std::move(*listener), UniqueFd(pipe_fds[0]), UniqueFd(pipe_fds[1]), core));
    server->thread_ = std::thread([raw = server.get()] { raw->serve(); });
    return server;
}

LocalChannelServer::LocalChannelServer(std::string path, UniqueFd listener, UniqueFd stop_read,
                                       UniqueFd stop_write, AgentCore& core)
    : path_(std::move(path)),
      listener_(std::move(listener)),
      stop_read_(std::move(stop_read)),
      stop_write_(std::move(stop_write)),
      core_(core) {}

LocalChannelServer::~LocalChannelServer() {
    const char stop = 1;
    while (::write(stop_write_.get(), &stop, 1) < 0 && errno == EINTR) {
    }
    if (thread_.joinable()) thread_.join();
    ::unlink(path_.c_str());
}

void LocalChannelServer::serve() {
    for (;;) {
        pollfd fds[2] = {{listener_.get(), POLLIN, 0}, {stop_read_.get(), POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            core_.log(fmt::format("local channel: poll: {}", os_error("", errno).what));
            return;
        }
        if (fds[1].revents != 0) return;
        UniqueFd connection(
            ::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
        if (connection) handle(std::move(connection));
    }
}

void LocalChannelServer::handle(UniqueFd connection) {
    auto peer = sys::peer_credentials(connection.get());
    sys::LineChannel channel(std::move(connection), engine::kLocalLineBytes);
    const auto reply = [&](const std::string& line) {
        (void)channel.write_line(line, local_deadline_in(5));
    };
    if (!peer || !sys::trusted_local_peer(peer->uid, ::geteuid())) {
        if (peer) {
            core_.log(fmt::format("local channel: refused PID {} (uid {}): only root may ask",
                                  peer->pid, peer->uid));
        }
        reply(engine::local_error(Error{"only root (or the agent's own user) may use this channel",
                                        0, ErrorCategory::permission}));
        return;
    }
    for (;;) {
        auto line = channel.read_line(Steady::now() + kLocalIdle);
        if (!line) {
            if (line.error().category == ErrorCategory::invalid_input) {
                reply(engine::local_error(line.error()));
            }
            return;  // closed, idle too long, or unreadable
        }
        auto request = engine::parse_local_request(*line);
        if (!request) {
            reply(engine::local_error(request.error()));
            return;
        }
        if (request->name == "hello") {
            reply(engine::local_ok(
                {{"agent_pid", ::getpid()},
                 {"version", GPUKILL_VERSION},
                 {"requests",
                  {"hello", "snapshot", "release_driver_session", "resume_driver_session"}}}));
        } else if (request->name == "snapshot") {
            snapshot(channel, request->fields);
        } else if (request->name == "release_driver_session") {
            release(channel, *peer, request->fields);
        } else if (request->name == "resume_driver_session") {
            reply(engine::local_error(Error{"no driver session is let go on this connection", 0,
                                            ErrorCategory::invalid_input}));
        } else {
            reply(engine::local_error(
                Error{"no such request: " + printable(request->name.substr(0, 64)), 0,
                      ErrorCategory::not_found}));
        }
    }
}

void LocalChannelServer::snapshot(sys::LineChannel& channel, const nlohmann::json& request) {
    // A fresh snapshot, not the last sample: with the holder tracker it costs a rescan of
    // what changed since the engine's last one, so the answer is what a sweep finds now.
    Snapshot host;
    Result<void> answered = core_.with_engine([&](engine::Engine& engine) -> Result<void> {
        const engine::EngineConfig& config = engine.config();
        if (auto same =
                engine::check_local_snapshot_request(request, config.roots, config.nvml_library);
            !same) {
            return same;
        }
        host = engine::snapshot_for_local_list(engine);
        return {};
    });
    std::string document;
    if (answered) {
        document = json_text(to_json(host), -1);
        if (document.size() > engine::kMaxLocalSnapshotBytes) {
            answered = fail(ErrorCategory::unavailable,
                            fmt::format("the snapshot is {} bytes, over the channel's {}",
                                        document.size(), engine::kMaxLocalSnapshotBytes));
        }
    }
    const sys::Deadline deadline = local_deadline_in(5);
    if (!answered) {
        (void)channel.write_line(engine::local_error(answered.error()), deadline);
        return;
    }
    if (channel.write_line(engine::local_snapshot_reply(document.size()), deadline)) {
        (void)channel.write_line(document, deadline);
    }
}

void LocalChannelServer::release(sys::LineChannel& channel, const sys::PeerCredentials& peer,
                                 const nlohmann::json& request) {
    double seconds = engine::kMaxReleaseSeconds;
    if (auto found = request.find("seconds"); found != request.end()) {
        if (!found->is_number() || !(found->get<double>() > 0)) {
            (void)channel.write_line(
                engine::local_error(
                    Error{"\"seconds\" must be a number above 0", 0, ErrorCategory::invalid_input}),
                local_deadline_in(5));
            return;
        }
        seconds = std::min(found->get<double>(), engine::kMaxReleaseSeconds);
    }
    std::string reason = "unsaid";
    if (auto found = request.find("reason"); found != request.end() && found->is_string()) {
        reason = printable(found->get<std::string>().substr(0, kMaxLocalReason));
    }
    core_.log(
        fmt::format("local channel: PID {} (uid {}) asks the agent to let go of its "
                    "driver session for at most {:g} s: {}",
                    peer.pid, peer.uid, seconds, reason));
    bool resume_asked = false;
    const Steady::time_point started = Steady::now();
    core_.without_driver_session([&] {
        const sys::Deadline until = local_deadline_in(seconds);
        if (!channel.write_line(engine::local_ok({{"released", true}, {"seconds", seconds}}),
                                local_deadline_in(5))) {
            return;  // the client is gone: take the session up again at once
        }
        // Until the client says so, hangs up, the time is over, or the agent stops.
        if (!channel.wait_readable(until, stop_read_.get())) return;
        auto line = channel.read_line(local_deadline_in(1));
        if (!line) return;
        auto next = engine::parse_local_request(*line);
        resume_asked = next && next->name == "resume_driver_session";
    });
    const double held = std::chrono::duration<double>(Steady::now() - started).count();
    core_.log(fmt::format("local channel: driver session taken up again after {:.1f} s", held));
    if (resume_asked)
        (void)channel.write_line(engine::local_ok({{"resumed", true}}), local_deadline_in(5));
}

}  // namespace gpukill::agent
