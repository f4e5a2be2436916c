#include "mcp/http_transport.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "mcp/jsonrpc.hpp"
#include "mcp/stateless_revision.hpp"
#include "net/http_listener.hpp"
#include "net/peer_owner.hpp"

namespace gpukill::mcp {
namespace {

constexpr const char* kEndpoint = "/mcp";
constexpr const char* kJsonType = "application/json";

using SteadyClock = std::chrono::steady_clock;
using net::HttpRequest;
using net::HttpResponse;

// Bodies being received or handled together: 8 messages of the largest size.
constexpr std::size_t kBodiesInFlight = 8 * kMaxMessageBytes;

// 128 random bits as hex: a session id is a capability, so it is not guessable.
std::string http_new_session_id() {
    unsigned char bytes[16] = {};
    const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        std::size_t got = 0;
        while (got < sizeof(bytes)) {
            const ssize_t n = ::read(fd, bytes + got, sizeof(bytes) - got);
            if (n <= 0) break;
            got += static_cast<std::size_t>(n);
        }
        ::close(fd);
    }
    static const char* hex = "0123456789abcdef";
    std::string id;
    for (unsigned char b : bytes) {
        id.push_back(hex[b >> 4]);
        id.push_back(hex[b & 15]);
    }
    return id;
}

// A JSON-RPC error document as the HTTP answer, with its status.
void http_error_reply(HttpResponse& res, int status, const nlohmann::json& response) {
    res.status = status;
    res.content_type = kJsonType;
    res.body = to_line(response);
}

void http_json_error(HttpResponse& res, int status, int code, const std::string& message) {
    http_error_reply(res, status, error_response(nullptr, code, message));
}

bool http_supported_version(const std::string& version) {
    return std::any_of(kProtocolVersions.begin(), kProtocolVersions.end(),
                       [&](const char* known) { return version == known; });
}

bool http_accepts(const std::string& accept, std::string_view type) {
    return accept.find(type) != std::string::npos;
}

void http_send_reply(HttpResponse& res, const nlohmann::json& reply, bool wants_json) {
    const std::string body = to_line(reply);
    if (!wants_json) {
        res.set_header("Cache-Control", "no-cache");
        res.content_type = "text/event-stream";
        res.body = "event: message\ndata: " + body + "\n\n";
    } else {
        res.content_type = kJsonType;
        res.body = body;
    }
}

// Why the standard headers of a stateless request disagree with its body, if they do:
// MCP-Protocol-Version and Mcp-Method always, Mcp-Name for the methods that name a
// tool, prompt or resource.
std::optional<std::string> http_header_mismatch(const HttpRequest& req, const RpcRequest& request,
                                                const Envelope& envelope) {
    if (!req.has_header("MCP-Protocol-Version")) return "MCP-Protocol-Version header required";
    if (const std::string version = req.header("MCP-Protocol-Version");
        version != envelope.protocol_version) {
        return "MCP-Protocol-Version header " + version + " disagrees with the body's " +
               envelope.protocol_version;
    }
    if (!req.has_header("Mcp-Method")) return "Mcp-Method header required";
    if (const std::string method = req.header("Mcp-Method"); method != request.method) {
        return "Mcp-Method header " + method + " disagrees with the body's method " +
               request.method;
    }
    if (const auto name = mcp_name_of(request.method, request.params)) {
        if (!req.has_header("Mcp-Name")) return "Mcp-Name header required for " + request.method;
        const auto sent = decode_mcp_header_value(req.header("Mcp-Name"));
        if (!sent || *sent != *name) return "Mcp-Name header disagrees with the body";
    }
    return std::nullopt;
}

}  // namespace

struct HttpTransport::State {
    Server& server;
    HttpOptions options;
    std::mutex listener_mutex;
    std::unique_ptr<net::HttpListener> listener;
    bool stop_requested = false;
    std::mutex sessions_mutex;
    struct Entry {
        Session session;
        SteadyClock::time_point last_used;
        bool may_act = true;
        std::string owner;  // the token's name that opened it ("" without a token file)
    };
    std::map<std::string, Entry> sessions;

    State(Server& s, HttpOptions o) : server(s), options(std::move(o)) {}

    // Without a token file, the only caller is the server's own user (or root): the owner
    // of the client's socket, as the kernel records it. Another local user would read,
    // through this server's privileges, what it cannot read itself (other users'
    // processes, their command lines, the rogue scan's evidence).
    static bool own_user_connected(const HttpRequest& req) {
        const auto owner = net::loopback_peer_owner({req.remote_address, req.remote_port},
                                                    {req.local_address, req.local_port});
        return owner && (*owner == ::geteuid() || *owner == 0);
    }

    // Origin, Host and the bearer token, from the head alone: the refusal, or nothing
    // (with the token's entry on the request).
    std::optional<HttpResponse> admit(HttpRequest& req) const {
        HttpResponse res;
        std::optional<std::string_view> origin;
        const std::string origin_value = req.header("Origin");
        if (req.has_header("Origin")) origin = origin_value;
        if (!net::origin_allowed(origin, options.allowed_hosts)) {
            http_json_error(res, 403, rpc_code::invalid_request, "Origin not allowed");
            return res;
        }
        if (!net::host_header_allowed(req.header("Host"), options.allowed_hosts)) {
            http_json_error(res, 403, rpc_code::invalid_request,
                            "Host not allowed (loopback names and --allowed-host only)");
            return res;
        }
        if (req.path != kEndpoint) {
            http_json_error(res, 404, rpc_code::invalid_request, "not found: the endpoint is /mcp");
            return res;
        }
        if (!options.tokens && !own_user_connected(req)) {
            http_json_error(res, 403, rpc_code::invalid_request,
                            fmt::format("this MCP server has no token file: it answers only its "
                                        "own user (uid {}) and root; start it with --token-file "
                                        "to serve others",
                                        ::geteuid()));
            return res;
        }
        if (options.tokens) {
            const std::string authorization = req.header("Authorization");
            const auto secret = net::bearer_secret(authorization);
            const net::TokenEntry* token = secret ? options.tokens->match(*secret) : nullptr;
            if (token == nullptr || !token->can_read) {
                res.set_header("WWW-Authenticate", "Bearer realm=\"gpukill-mcp\"");
                http_json_error(res, 401, rpc_code::invalid_request,
                                "a bearer token is required (Authorization: Bearer SECRET)");
                return res;
            }
            req.token = token;
        }
        return std::nullopt;
    }

    static bool may_act(const HttpRequest& req) {
        return req.token == nullptr || req.token->can_act;
    }
    static std::string owner_of(const HttpRequest& req) {
        return req.token != nullptr ? req.token->name : std::string();
    }

    HttpResponse handle(const HttpRequest& req) {
        HttpResponse res;
        if (req.method == "POST") {
            post(req, res);
        } else if (req.method == "DELETE") {
            remove(req, res);
        } else {
            res.set_header("Allow", "POST, DELETE");
            res.status = 405;
        }
        return res;
    }

    void drop_idle(SteadyClock::time_point now) {
        std::erase_if(sessions, [&](const auto& entry) {
            return now - entry.second.last_used > options.session_idle;
        });
    }

    void post(const HttpRequest& req, HttpResponse& res) {
        const bool token_may_act = may_act(req);
        const std::string accept = req.header("Accept");
        const bool wants_json =
            accept.empty() || http_accepts(accept, kJsonType) || http_accepts(accept, "*/*");
        const bool wants_sse = http_accepts(accept, "text/event-stream");
        if (!wants_json && !wants_sse) {
            http_json_error(res, 406, rpc_code::invalid_request,
                            "Accept must include application/json or text/event-stream");
            return;
        }
        const std::string content_type = req.header("Content-Type");
        if (content_type.find(kJsonType) == std::string::npos) {
            http_json_error(res, 415, rpc_code::invalid_request,
                            "Content-Type must be application/json");
            return;
        }
        const RpcMessage message = parse_message(req.body);
        if (const auto* failure = std::get_if<RpcFailure>(&message)) {
            http_error_reply(res, 400, failure->response);
            return;
        }
        const auto* request = std::get_if<RpcRequest>(&message);
        const auto* notification = std::get_if<RpcNotification>(&message);
        const Envelope envelope =
            read_envelope(request != nullptr ? request->params
                                             : (notification != nullptr ? notification->params
                                                                        : nlohmann::json()));
        const bool header_claims_stateless =
            req.header("MCP-Protocol-Version") == kStatelessProtocolVersion;
        if (envelope.kind != EnvelopeKind::none || header_claims_stateless) {
            post_stateless(req, res, message, envelope, token_may_act, wants_json);
            return;
        }
        const bool is_initialize = request != nullptr && request->method == "initialize";
        if (req.has_header("MCP-Protocol-Version") && !is_initialize &&
            !http_supported_version(req.header("MCP-Protocol-Version"))) {
            http_json_error(
                res, 400, rpc_code::invalid_request,
                "unsupported MCP-Protocol-Version " + req.header("MCP-Protocol-Version"));
            return;
        }
        const auto now = SteadyClock::now();
        const std::string owner = owner_of(req);
        std::string session_id;
        Session session;
        {
            std::lock_guard lock(sessions_mutex);
            drop_idle(now);
            if (is_initialize) {
                while (sessions.size() >= options.max_sessions) {
                    auto oldest = std::min_element(
                        sessions.begin(), sessions.end(), [](const auto& a, const auto& b) {
                            return a.second.last_used < b.second.last_used;
                        });
                    sessions.erase(oldest);
                }
                session_id = http_new_session_id();
                session.remote = req.peer();
                session.may_act = token_may_act;
            } else {
                if (!req.has_header("Mcp-Session-Id")) {
                    http_json_error(res, 400, rpc_code::invalid_request,
                                    "Mcp-Session-Id header required (send initialize first)");
                    return;
                }
                session_id = req.header("Mcp-Session-Id");
                const auto found = sessions.find(session_id);
                // Another token's session is not this caller's to use: as if unknown.
                if (found == sessions.end() || found->second.owner != owner) {
                    http_json_error(res, 404, rpc_code::invalid_request,
                                    "unknown or ended session: initialize again");
                    return;
                }
                found->second.last_used = now;
                session = found->second.session;
                session.may_act = token_may_act && found->second.may_act;
            }
        }
        std::optional<nlohmann::json> reply = server.handle(session, message);
        {
            std::lock_guard lock(sessions_mutex);
            if (is_initialize) {
                if (session.initialized) {
                    sessions[session_id] = Entry{session, SteadyClock::now(), token_may_act, owner};
                }
            } else if (auto found = sessions.find(session_id); found != sessions.end()) {
                found->second.session.log_level = session.log_level;
            }
        }
        if (is_initialize && session.initialized) res.set_header("Mcp-Session-Id", session_id);
        if (!reply) {
            res.status = 202;
            return;
        }
        http_send_reply(res, *reply, wants_json);
    }

    // Revision 2026-07-28: no session; each POST stands alone, and its standard headers
    // must agree with its body (400 otherwise, as a bad envelope is).
    void post_stateless(const HttpRequest& req, HttpResponse& res, const RpcMessage& message,
                        const Envelope& envelope, bool token_may_act, bool wants_json) {
        const auto* request = std::get_if<RpcRequest>(&message);
        const nlohmann::json id = request != nullptr ? request->id : nlohmann::json();
        if (envelope.kind == EnvelopeKind::none) {
            http_error_reply(res, 400,
                             error_response(id, rpc_code::invalid_params,
                                            std::string("MCP-Protocol-Version names ") +
                                                kStatelessProtocolVersion + " but params._meta." +
                                                kMetaProtocolVersion + " is missing"));
            return;
        }
        if (auto refused = envelope_error(id, envelope)) {
            http_error_reply(res, 400, *refused);
            return;
        }
        if (request != nullptr) {
            if (auto mismatch = http_header_mismatch(req, *request, envelope)) {
                http_error_reply(res, 400,
                                 error_response(id, rpc_code::header_mismatch, *mismatch));
                return;
            }
        }
        Session transport;
        transport.remote = req.peer();
        transport.may_act = token_may_act;
        std::optional<nlohmann::json> reply = server.handle(transport, message);
        if (!reply) {
            res.status = 202;
            return;
        }
        http_send_reply(res, *reply, wants_json);
    }

    void remove(const HttpRequest& req, HttpResponse& res) {
        if (!req.has_header("Mcp-Session-Id")) {
            http_json_error(res, 400, rpc_code::invalid_request, "Mcp-Session-Id header required");
            return;
        }
        std::lock_guard lock(sessions_mutex);
        const auto found = sessions.find(req.header("Mcp-Session-Id"));
        // Only the token that opened a session ends it; to any other it does not exist.
        if (found == sessions.end() || found->second.owner != owner_of(req)) {
            http_json_error(res, 404, rpc_code::invalid_request, "unknown or ended session");
            return;
        }
        sessions.erase(found);
        res.status = 204;
    }
};

HttpTransport::HttpTransport(Server& server, HttpOptions options)
    : state_(std::make_unique<State>(server, std::move(options))) {}

HttpTransport::~HttpTransport() = default;

int HttpTransport::serve(const std::function<void(int port)>& ready, std::string& error) {
    State& state = *state_;
    net::HttpListenerSettings settings{
        .host = state.options.address,
        .port = state.options.port,
        .tls = std::nullopt,
        .limits =
            net::HttpLimits{
                .max_head_bytes = 16 * 1024, .max_headers = 64, .max_body_bytes = kMaxMessageBytes},
        .request_seconds = state.options.request_seconds,
        .idle_seconds = 5,
        .write_seconds = 30,
        .workers = std::max(1u, state.options.threads),
        .max_connections = std::max<std::size_t>(1, state.options.max_connections),
        .max_queued = std::max<std::size_t>(1, state.options.max_connections),
        .max_body_bytes_in_flight = kBodiesInFlight,
        .max_requests_per_connection = 1000};
    net::HttpHandlers handlers{
        .admit = [&state](HttpRequest& req) { return state.admit(req); },
        .handle = [&state](const HttpRequest& req) { return state.handle(req); },
        .refusal =
            [](int status, const std::string& reason) {
                HttpResponse res;
                http_json_error(res, status, rpc_code::invalid_request, reason);
                return res;
            },
        .answered = nullptr};
    auto listener = net::HttpListener::open(std::move(settings), std::move(handlers));
    if (!listener) {
        error = "cannot listen on " + state.options.address + ":" +
                std::to_string(state.options.port) + ": " + listener.error().what;
        return 1;
    }
    {
        std::lock_guard lock(state.listener_mutex);
        state.listener = std::move(*listener);
        if (state.stop_requested) state.listener->stop();
    }
    ready(state.listener->port());
    state.listener->serve();
    return 0;
}

void HttpTransport::stop() {
    std::lock_guard lock(state_->listener_mutex);
    state_->stop_requested = true;
    if (state_->listener) state_->listener->stop();
}

}  // namespace gpukill::mcp
