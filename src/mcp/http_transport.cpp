#include "mcp/http_transport.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <httplib.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "mcp/jsonrpc.hpp"
#include "mcp/stateless_revision.hpp"
#include "net/peer_owner.hpp"

namespace gpukill::mcp {
namespace {

constexpr const char* kEndpoint = "/mcp";
constexpr const char* kJsonType = "application/json";

using SteadyClock = std::chrono::steady_clock;

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
void http_error_reply(httplib::Response& res, int status, const nlohmann::json& response) {
    res.status = status;
    res.set_content(to_line(response), kJsonType);
}

void http_json_error(httplib::Response& res, int status, int code, const std::string& message) {
    http_error_reply(res, status, error_response(nullptr, code, message));
}

bool http_supported_version(const std::string& version) {
    return std::any_of(kProtocolVersions.begin(), kProtocolVersions.end(),
                       [&](const char* known) { return version == known; });
}

bool http_accepts(const std::string& accept, std::string_view type) {
    return accept.find(type) != std::string::npos;
}

void http_send_reply(httplib::Response& res, const nlohmann::json& reply, bool wants_json) {
    const std::string body = to_line(reply);
    if (!wants_json) {
        res.set_header("Cache-Control", "no-cache");
        res.set_content("event: message\ndata: " + body + "\n\n", "text/event-stream");
    } else {
        res.set_content(body, kJsonType);
    }
}

// Why the standard headers of a stateless request disagree with its body, if they do:
// MCP-Protocol-Version and Mcp-Method always, Mcp-Name for the methods that name a
// tool, prompt or resource.
std::optional<std::string> http_header_mismatch(const httplib::Request& req,
                                                const RpcRequest& request,
                                                const Envelope& envelope) {
    if (!req.has_header("MCP-Protocol-Version")) return "MCP-Protocol-Version header required";
    if (const std::string version = req.get_header_value("MCP-Protocol-Version");
        version != envelope.protocol_version) {
        return "MCP-Protocol-Version header " + version + " disagrees with the body's " +
               envelope.protocol_version;
    }
    if (!req.has_header("Mcp-Method")) return "Mcp-Method header required";
    if (const std::string method = req.get_header_value("Mcp-Method"); method != request.method) {
        return "Mcp-Method header " + method + " disagrees with the body's method " +
               request.method;
    }
    if (const auto name = mcp_name_of(request.method, request.params)) {
        if (!req.has_header("Mcp-Name")) return "Mcp-Name header required for " + request.method;
        const auto sent = decode_mcp_header_value(req.get_header_value("Mcp-Name"));
        if (!sent || *sent != *name) return "Mcp-Name header disagrees with the body";
    }
    return std::nullopt;
}

}  // namespace

struct HttpTransport::State {
    Server& server;
    HttpOptions options;
    httplib::Server http;
    std::mutex sessions_mutex;
    struct Entry {
        Session session;
        SteadyClock::time_point last_used;
        bool may_act = true;
    };
    std::map<std::string, Entry> sessions;

    State(Server& s, HttpOptions o) : server(s), options(std::move(o)) {}

    // Without a token file, the only caller is the server's own user (or root): the owner
    // of the client's socket, as the kernel records it. Another local user would read,
    // through this server's privileges, what it cannot read itself (other users'
    // processes, their command lines, the rogue scan's evidence).
    static bool own_user_connected(const httplib::Request& req) {
        const auto owner =
            net::loopback_peer_owner({req.remote_addr, static_cast<std::uint16_t>(req.remote_port)},
                                     {req.local_addr, static_cast<std::uint16_t>(req.local_port)});
        return owner && (*owner == ::geteuid() || *owner == 0);
    }

    // Origin, Host and the bearer token; false with the answer written when refused.
    bool admitted(const httplib::Request& req, httplib::Response& res, bool& may_act) {
        std::optional<std::string_view> origin;
        std::string origin_value;
        if (req.has_header("Origin")) {
            origin_value = req.get_header_value("Origin");
            origin = origin_value;
        }
        if (!net::origin_allowed(origin, options.allowed_hosts)) {
            http_json_error(res, 403, rpc_code::invalid_request, "Origin not allowed");
            return false;
        }
        if (!net::host_header_allowed(req.get_header_value("Host"), options.allowed_hosts)) {
            http_json_error(res, 403, rpc_code::invalid_request,
                            "Host not allowed (loopback names and --allowed-host only)");
            return false;
        }
        may_act = true;
        if (!options.tokens && !own_user_connected(req)) {
            http_json_error(res, 403, rpc_code::invalid_request,
                            fmt::format("this MCP server has no token file: it answers only its "
                                        "own user (uid {}) and root; start it with --token-file "
                                        "to serve others",
                                        ::geteuid()));
            return false;
        }
        if (options.tokens) {
            const std::string authorization = req.get_header_value("Authorization");
            const auto secret = net::bearer_secret(authorization);
            const net::TokenEntry* token = secret ? options.tokens->match(*secret) : nullptr;
            if (token == nullptr || !token->can_read) {
                res.set_header("WWW-Authenticate", "Bearer realm=\"gpukill-mcp\"");
                http_json_error(res, 401, rpc_code::invalid_request,
                                "a bearer token is required (Authorization: Bearer SECRET)");
                return false;
            }
            may_act = token->can_act;
        }
        return true;
    }

    void drop_idle(SteadyClock::time_point now) {
        std::erase_if(sessions, [&](const auto& entry) {
            return now - entry.second.last_used > options.session_idle;
        });
    }

    void post(const httplib::Request& req, httplib::Response& res) {
        bool may_act = true;
        if (!admitted(req, res, may_act)) return;
        const std::string accept = req.get_header_value("Accept");
        const bool wants_json =
            accept.empty() || http_accepts(accept, kJsonType) || http_accepts(accept, "*/*");
        const bool wants_sse = http_accepts(accept, "text/event-stream");
        if (!wants_json && !wants_sse) {
            http_json_error(res, 406, rpc_code::invalid_request,
                            "Accept must include application/json or text/event-stream");
            return;
        }
        const std::string content_type = req.get_header_value("Content-Type");
        if (content_type.find(kJsonType) == std::string::npos) {
            http_json_error(res, 415, rpc_code::invalid_request,
                            "Content-Type must be application/json");
            return;
        }
        const RpcMessage message = parse_message(req.body);
        if (const auto* failure = std::get_if<RpcFailure>(&message)) {
            res.status = 400;
            res.set_content(to_line(failure->response), kJsonType);
            return;
        }
        const auto* request = std::get_if<RpcRequest>(&message);
        const auto* notification = std::get_if<RpcNotification>(&message);
        const Envelope envelope =
            read_envelope(request != nullptr ? request->params
                                             : (notification != nullptr ? notification->params
                                                                        : nlohmann::json()));
        const bool header_claims_stateless =
            req.get_header_value("MCP-Protocol-Version") == kStatelessProtocolVersion;
        if (envelope.kind != EnvelopeKind::none || header_claims_stateless) {
            post_stateless(req, res, message, envelope, may_act, wants_json);
            return;
        }
        const bool is_initialize = request != nullptr && request->method == "initialize";
        if (req.has_header("MCP-Protocol-Version") && !is_initialize &&
            !http_supported_version(req.get_header_value("MCP-Protocol-Version"))) {
            http_json_error(
                res, 400, rpc_code::invalid_request,
                "unsupported MCP-Protocol-Version " + req.get_header_value("MCP-Protocol-Version"));
            return;
        }
        const auto now = SteadyClock::now();
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
                session.remote = req.remote_addr + ":" + std::to_string(req.remote_port);
                session.may_act = may_act;
            } else {
                if (!req.has_header("Mcp-Session-Id")) {
                    http_json_error(res, 400, rpc_code::invalid_request,
                                    "Mcp-Session-Id header required (send initialize first)");
                    return;
                }
                session_id = req.get_header_value("Mcp-Session-Id");
                const auto found = sessions.find(session_id);
                if (found == sessions.end()) {
                    http_json_error(res, 404, rpc_code::invalid_request,
                                    "unknown or ended session: initialize again");
                    return;
                }
                found->second.last_used = now;
                session = found->second.session;
                session.may_act = may_act && found->second.may_act;
            }
        }
        std::optional<nlohmann::json> reply = server.handle(session, message);
        {
            std::lock_guard lock(sessions_mutex);
            if (is_initialize) {
                if (session.initialized) {
                    sessions[session_id] = Entry{session, SteadyClock::now(), may_act};
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
    void post_stateless(const httplib::Request& req, httplib::Response& res,
                        const RpcMessage& message, const Envelope& envelope, bool may_act,
                        bool wants_json) {
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
        transport.remote = req.remote_addr + ":" + std::to_string(req.remote_port);
        transport.may_act = may_act;
        std::optional<nlohmann::json> reply = server.handle(transport, message);
        if (!reply) {
            res.status = 202;
            return;
        }
        http_send_reply(res, *reply, wants_json);
    }

    void remove(const httplib::Request& req, httplib::Response& res) {
        bool may_act = true;
        if (!admitted(req, res, may_act)) return;
        if (!req.has_header("Mcp-Session-Id")) {
            http_json_error(res, 400, rpc_code::invalid_request, "Mcp-Session-Id header required");
            return;
        }
        std::lock_guard lock(sessions_mutex);
        if (sessions.erase(req.get_header_value("Mcp-Session-Id")) == 0) {
            http_json_error(res, 404, rpc_code::invalid_request, "unknown or ended session");
            return;
        }
        res.status = 204;
    }
};

HttpTransport::HttpTransport(Server& server, HttpOptions options)
    : state_(std::make_unique<State>(server, std::move(options))) {}

HttpTransport::~HttpTransport() = default;

int HttpTransport::serve(const std::function<void(int port)>& ready, std::string& error) {
    State& state = *state_;
    const unsigned threads = std::max(1u, state.options.threads);
    state.http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    state.http.set_payload_max_length(kMaxMessageBytes);
    state.http.set_read_timeout(30, 0);
    state.http.set_write_timeout(30, 0);
    state.http.Post(kEndpoint, [&state](const httplib::Request& req, httplib::Response& res) {
        state.post(req, res);
    });
    state.http.Delete(kEndpoint, [&state](const httplib::Request& req, httplib::Response& res) {
        state.remove(req, res);
    });
    state.http.Get(kEndpoint, [&state](const httplib::Request& req, httplib::Response& res) {
        bool may_act = true;
        if (!state.admitted(req, res, may_act)) return;
        res.set_header("Allow", "POST, DELETE");
        res.status = 405;
    });
    int port = state.options.port;
    if (port == 0) {
        port = state.http.bind_to_any_port(state.options.address);
        if (port < 0) port = 0;
    } else if (!state.http.bind_to_port(state.options.address, port)) {
        port = 0;
    }
    if (port <= 0) {
        error =
            "cannot listen on " + state.options.address + ":" + std::to_string(state.options.port);
        return 1;
    }
    ready(port);
    state.http.listen_after_bind();
    return 0;
}

void HttpTransport::stop() {
    state_->http.stop();
}

}  // namespace gpukill::mcp
