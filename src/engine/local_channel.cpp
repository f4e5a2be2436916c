#include "engine/local_channel.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "host/state_dir.hpp"
#include "model/snapshot_json_read.hpp"

namespace gpukill::engine {
namespace {

sys::Deadline in_seconds(double seconds) {
    return std::chrono::steady_clock::now() +
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(
               std::chrono::duration<double>(seconds));
}

std::optional<ErrorCategory> category_named(const std::string& name) {
    for (ErrorCategory category :
         {ErrorCategory::invalid_input, ErrorCategory::not_found, ErrorCategory::refused,
          ErrorCategory::permission, ErrorCategory::conflict, ErrorCategory::unavailable,
          ErrorCategory::unsupported, ErrorCategory::internal}) {
        if (name == to_string(category)) return category;
    }
    return std::nullopt;
}

// Whether `text` nests arrays and objects at most `limit` deep (outside strings): checked
// before parsing, so no line builds a value whose destruction recurses deeply.
bool nesting_within(std::string_view text, int limit) {
    int depth = 0;
    bool in_string = false;
    bool escaped = false;
    for (char c : text) {
        if (in_string) {
            if (escaped) {
                escaped = false;
            } else if (c == '\\') {
                escaped = true;
            } else if (c == '"') {
                in_string = false;
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > limit) return false;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return true;
}

constexpr int kMaxLocalNesting = 8;

// The socket's file must belong to root or to this user: anyone else could have put a
// listener of their own there.
Result<void> socket_file_trusted(const std::string& path) {
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0) return {};  // gone meanwhile: connect says so
    if (!S_ISSOCK(info.st_mode) || !sys::trusted_local_peer(info.st_uid, ::geteuid())) {
        return fail(ErrorCategory::refused,
                    fmt::format("{} is not a socket of root's or this user's: not used", path));
    }
    return {};
}

struct TrustedAgent {
    sys::LineChannel channel;
    sys::PeerCredentials peer;
};

// A connection to the agent serving `path`, checked by the kernel's word: the socket file
// and the process listening on it are root's or this user's. Empty when nothing listens
// there, or when this very process does.
Result<std::optional<TrustedAgent>> connect_trusted_agent(const std::string& path) {
    if (auto trusted = socket_file_trusted(path); !trusted) return std::unexpected(trusted.error());
    auto fd = sys::connect_local(path);
    if (!fd) {
        if (fd.error().category == ErrorCategory::not_found) return std::nullopt;  // no agent
        return std::unexpected(fd.error());
    }
    auto peer = sys::peer_credentials(fd->get());
    if (!peer) return std::unexpected(peer.error());
    if (peer->pid == ::getpid()) return std::nullopt;
    if (!sys::trusted_local_peer(peer->uid, ::geteuid())) {
        return fail(ErrorCategory::refused,
                    fmt::format("the process serving {} (PID {}) runs as uid {}, neither root nor "
                                "this user: not asked",
                                path, peer->pid, peer->uid));
    }
    return TrustedAgent{sys::LineChannel(std::move(*fd), kLocalLineBytes), *peer};
}

nlohmann::json roots_json(const HostRoots& roots) {
    return {{"procfs", roots.procfs}, {"sysfs", roots.sysfs}, {"devfs", roots.devfs}};
}

}  // namespace

std::string local_channel_path(const std::string& state_dir) {
    return state_file_path(state_dir, "agent.sock");
}

Result<void> make_local_channel_directory(const std::string& socket_path) {
    const std::string dir = std::filesystem::path(socket_path).parent_path().string();
    return make_state_directory(dir.empty() ? "." : dir);
}

Result<LocalRequest> parse_local_request(std::string_view line) {
    if (line.size() > kLocalLineBytes || !nesting_within(line, kMaxLocalNesting)) {
        return fail(ErrorCategory::invalid_input, "a request nests too deep or is too long");
    }
    const nlohmann::json doc = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded() || !doc.is_object()) {
        return fail(ErrorCategory::invalid_input, "a request is one JSON object per line");
    }
    const auto version = doc.find("v");
    if (version == doc.end() || !version->is_number_integer() ||
        version->get<std::int64_t>() != kLocalChannelVersion) {
        return fail(ErrorCategory::invalid_input,
                    fmt::format("\"v\" must be {} (the protocol version)", kLocalChannelVersion));
    }
    const auto name = doc.find("request");
    if (name == doc.end() || !name->is_string()) {
        return fail(ErrorCategory::invalid_input, "\"request\" must name the request");
    }
    return LocalRequest{name->get<std::string>(), doc};
}

std::string local_ok(nlohmann::json fields) {
    nlohmann::json reply{{"v", kLocalChannelVersion}, {"ok", true}};
    for (auto it = fields.begin(); it != fields.end(); ++it) reply[it.key()] = it.value();
    return reply.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string local_error(const Error& error) {
    return nlohmann::json{
        {"v", kLocalChannelVersion},
        {"ok", false},
        {"error", {{"category", to_string(error.category)}, {"message", error.what}}}}
        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<nlohmann::json> parse_local_reply(std::string_view line) {
    if (line.size() > kLocalLineBytes || !nesting_within(line, kMaxLocalNesting)) {
        return fail(ErrorCategory::internal, "the agent's answer nests too deep or is too long");
    }
    nlohmann::json doc = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("ok") || !doc["ok"].is_boolean()) {
        return fail(ErrorCategory::internal, "the agent's answer is not a reply");
    }
    if (doc["ok"].get<bool>()) return doc;
    const nlohmann::json& error =
        doc.contains("error") && doc["error"].is_object() ? doc["error"] : nlohmann::json{};
    const std::string message = error.contains("message") && error["message"].is_string()
                                    ? error["message"].get<std::string>()
                                    : "refused";
    const auto category = error.contains("category") && error["category"].is_string()
                              ? category_named(error["category"].get<std::string>())
                              : std::nullopt;
    return fail(category.value_or(ErrorCategory::internal), message);
}

Result<std::unique_ptr<AgentDriverRelease>> AgentDriverRelease::ask(const std::string& state_dir,
                                                                    double seconds,
                                                                    const std::string& reason) {
    const std::string path = local_channel_path(state_dir);
    auto agent = connect_trusted_agent(path);
    if (!agent) return std::unexpected(agent.error());
    if (!*agent) return nullptr;  // no agent, or this is the agent: its engine lets go itself
    sys::LineChannel channel = std::move((*agent)->channel);
    const sys::PeerCredentials peer = (*agent)->peer;
    const double hold = std::clamp(seconds, 1.0, kMaxReleaseSeconds);
    const nlohmann::json request{{"v", kLocalChannelVersion},
                                 {"request", "release_driver_session"},
                                 {"seconds", hold},
                                 {"reason", reason}};
    // Letting go waits for the agent's sample in progress (a sweep) to end.
    const sys::Deadline deadline = in_seconds(30);
    if (auto sent = channel.write_line(request.dump(), deadline); !sent) {
        return std::unexpected(sent.error());
    }
    auto line = channel.read_line(deadline);
    if (!line) {
        return fail(ErrorCategory::unavailable,
                    fmt::format("the agent (PID {}) did not let go of its driver session: {}",
                                peer.pid, line.error().what));
    }
    auto reply = parse_local_reply(*line);
    if (!reply) {
        return std::unexpected(
            as(reply.error().category,
               Error{fmt::format("the agent (PID {}) did not let go of its driver session: {}",
                                 peer.pid, reply.error().what)}));
    }
    return std::unique_ptr<AgentDriverRelease>(
        new AgentDriverRelease(std::move(channel), peer.pid));
}

void AgentDriverRelease::resume() {
    if (resumed_) return;
    resumed_ = true;
    const sys::Deadline deadline = in_seconds(10);
    const nlohmann::json request{{"v", kLocalChannelVersion}, {"request", "resume_driver_session"}};
    if (channel_.write_line(request.dump(), deadline)) (void)channel_.read_line(deadline);
}

AgentDriverRelease::~AgentDriverRelease() {
    resume();
}

nlohmann::json local_snapshot_request(const HostRoots& roots,
                                      const std::optional<std::string>& nvml_library) {
    return {{"v", kLocalChannelVersion},
            {"request", "snapshot"},
            {"roots", roots_json(roots)},
            {"nvml_library", nvml_library ? nlohmann::json(*nvml_library) : nlohmann::json()}};
}

Result<void> check_local_snapshot_request(const nlohmann::json& request, const HostRoots& roots,
                                          const std::optional<std::string>& nvml_library) {
    const auto asked_roots = request.find("roots");
    const auto asked_library = request.find("nvml_library");
    if (asked_roots == request.end() || !asked_roots->is_object() ||
        asked_library == request.end() ||
        !(asked_library->is_null() || asked_library->is_string())) {
        return fail(ErrorCategory::invalid_input,
                    "a snapshot request names the \"roots\" and \"nvml_library\" it would read");
    }
    const nlohmann::json own_library =
        nvml_library ? nlohmann::json(*nvml_library) : nlohmann::json();
    if (*asked_roots != roots_json(roots) || *asked_library != own_library) {
        return fail(ErrorCategory::conflict,
                    fmt::format("this agent reads {}, {} and {} through {}: another host's view",
                                roots.procfs, roots.sysfs, roots.devfs,
                                nvml_library.value_or("the system's NVML")));
    }
    return {};
}

std::string local_snapshot_reply(std::size_t document_bytes) {
    return local_ok({{"agent_pid", ::getpid()}, {"snapshot_bytes", document_bytes}});
}

Result<std::optional<AgentSnapshot>> ask_agent_snapshot(
    const std::string& state_dir, const HostRoots& roots,
    const std::optional<std::string>& nvml_library, sys::Deadline deadline) {
    auto agent = connect_trusted_agent(local_channel_path(state_dir));
    if (!agent) return std::unexpected(agent.error());
    if (!*agent) return std::nullopt;
    sys::LineChannel& channel = (*agent)->channel;
    const pid_t agent_pid = (*agent)->peer.pid;
    const auto failed = [&](ErrorCategory category, const std::string& why) {
        return fail(category, fmt::format("the agent (PID {}) did not answer: {}", agent_pid, why));
    };
    // Not in time, or the connection failed: the agent is busy or stuck (a reset holds its
    // channel), which a conflict in its reply does not mean.
    if (auto sent =
            channel.write_line(local_snapshot_request(roots, nvml_library).dump(), deadline);
        !sent) {
        return failed(ErrorCategory::unavailable, sent.error().what);
    }
    auto line = channel.read_line(deadline);
    if (!line) {
        return failed(line.error().category == ErrorCategory::invalid_input
                          ? ErrorCategory::internal
                          : ErrorCategory::unavailable,
                      line.error().what);
    }
    auto reply = parse_local_reply(*line);
    if (!reply) return failed(reply.error().category, reply.error().what);
    const auto bytes = reply->find("snapshot_bytes");
    if (bytes == reply->end() || !bytes->is_number_unsigned() ||
        bytes->get<std::uint64_t>() > kMaxLocalSnapshotBytes) {
        return failed(ErrorCategory::internal, "its reply names no snapshot of a bounded length");
    }
    auto document = channel.read_line(deadline, bytes->get<std::size_t>());
    if (!document) {
        return failed(document.error().category == ErrorCategory::invalid_input
                          ? ErrorCategory::internal
                          : ErrorCategory::unavailable,
                      document.error().what);
    }
    if (document->size() != bytes->get<std::size_t>()) {
        return failed(ErrorCategory::internal, "its snapshot is not of the length it named");
    }
    auto snapshot = snapshot_from_json(*document);
    if (!snapshot) return failed(ErrorCategory::internal, snapshot.error().what);
    return AgentSnapshot{std::move(*snapshot), agent_pid};
}

}  // namespace gpukill::engine
