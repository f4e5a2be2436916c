#include "agent/http_server.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "agent/api.hpp"
#include "agent/metrics.hpp"
#include "model/human_format.hpp"
#include "net/http_listener.hpp"

namespace gpukill::agent {
namespace {

// A keep-alive connection waits this long for its next request.
constexpr double kIdleSeconds = 5;
constexpr std::size_t kRequestsPerConnection = 100;

net::HttpResponse respond(const ApiResponse& answer) {
    net::HttpResponse response;
    response.status = answer.status;
    response.content_type = "application/json";
    response.body = answer.body;
    return response;
}

bool is_wildcard(const std::string& host) {
    return host == "0.0.0.0" || host == "::";
}

const Endpoint* endpoint_at(const std::string& path) {
    for (const Endpoint& endpoint : api_endpoints()) {
        if (path == endpoint.path) return &endpoint;
    }
    return nullptr;
}

// The listener's own answers (malformed, too large, too slow, too many).
ApiResponse listener_refusal(int status, const std::string& reason) {
    const char* category = status == 503   ? "unavailable"
                           : status >= 500 ? "internal"
                                           : "invalid_input";
    return error_response(status, category, reason);
}

Result<void> check_tls_files(const ServerSettings& settings) {
    if (settings.tls_cert.has_value() != settings.tls_key.has_value()) {
        return fail(ErrorCategory::invalid_input, "--tls-cert and --tls-key go together");
    }
    if (settings.tls_client_ca && !settings.tls_cert) {
        return fail(ErrorCategory::invalid_input,
                    "--tls-client-ca verifies clients of a TLS listener: give --tls-cert and "
                    "--tls-key too");
    }
    if (settings.tls_key) {
        // A key others can read is not private; refused as a token file is.
        if (auto key = net::read_private_file(*settings.tls_key); !key) {
            return fail(ErrorCategory::invalid_input,
                        fmt::format("--tls-key {}: {}", *settings.tls_key, key.error().what));
        }
    }
    return {};
}

}  // namespace

Result<ListenAddress> parse_listen_address(std::string_view text) {
    const auto bad = [&] {
        return fail(ErrorCategory::invalid_input,
                    fmt::format("--listen {}: expected HOST:PORT or [IPV6]:PORT", printable(text)));
    };
    std::string host;
    std::string_view port;
    if (!text.empty() && text.front() == '[') {
        const std::size_t close = text.find(']');
        if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
            return bad();
        }
        host = std::string(text.substr(1, close - 1));
        port = text.substr(close + 2);
    } else {
        const std::size_t colon = text.rfind(':');
        if (colon == std::string_view::npos) return bad();
        host = std::string(text.substr(0, colon));
        port = text.substr(colon + 1);
        if (host.find(':') != std::string::npos) return bad();  // IPv6 needs brackets
    }
    int number = -1;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), number);
    if (host.empty() || port.empty() || ec != std::errc() || end != port.data() + port.size() ||
        number < 0 || number > 65535) {
        return bad();
    }
    return ListenAddress{.host = host, .port = number};
}

AgentServer::AgentServer(ServerSettings settings, AgentCore& core)
    : settings_(std::move(settings)), core_(core) {}

AgentServer::~AgentServer() {
    stop();
}

Result<std::unique_ptr<AgentServer>> AgentServer::start(ServerSettings settings, AgentCore& core) {
    const std::string host = settings.listen.host;  // a copy: settings is moved below
    const bool loopback = net::is_loopback_address(host);
    if (!loopback && !settings.tls_cert && !settings.insecure_listen) {
        return fail(ErrorCategory::invalid_input,
                    fmt::format("refusing to listen on {} without TLS: give --tls-cert and "
                                "--tls-key, or --insecure-listen to accept plain HTTP there",
                                printable(host)));
    }
    if (auto checked = check_tls_files(settings); !checked) return std::unexpected(checked.error());
    if (settings.max_connections == 0) {
        return fail(ErrorCategory::invalid_input, "--max-connections must be at least 1");
    }
    if (!is_wildcard(host)) settings.allowed_hosts.push_back(host);

    std::unique_ptr<AgentServer> server(new AgentServer(std::move(settings), core));
    server->loopback_ = loopback;
    const ServerSettings& s = server->settings_;
    net::HttpListenerSettings listen{
        .host = host,
        .port = s.listen.port,
        .tls = std::nullopt,
        .limits =
            net::HttpLimits{
                .max_head_bytes = 16 * 1024, .max_headers = 64, .max_body_bytes = s.max_body_bytes},
        .request_seconds = s.request_timeout_seconds,
        .idle_seconds = kIdleSeconds,
        .write_seconds = s.request_timeout_seconds,
        .workers = s.max_connections,
        .max_connections = 2 * s.max_connections,
        .max_queued = s.max_connections,
        .max_body_bytes_in_flight = 2 * s.max_connections * s.max_body_bytes,
        .max_requests_per_connection = kRequestsPerConnection};
    if (s.tls_cert) {
        listen.tls = net::TlsFiles{*s.tls_cert, *s.tls_key, s.tls_client_ca};
    }
    AgentServer* raw = server.get();
    net::HttpHandlers handlers{
        .admit = [raw](net::HttpRequest& request) { return raw->admit(request); },
        .handle = [raw](const net::HttpRequest& request) { return raw->handle(request); },
        .refusal =
            [](int status, const std::string& reason) {
                return respond(listener_refusal(status, reason));
            },
        .answered =
            [raw](const net::HttpRequest& request, const net::HttpResponse& response) {
                raw->core_.count_response(response.status);
                if (request.method == "POST") {
                    raw->core_.log(fmt::format(
                        "{} {} from {} (token {}): {}", request.method, printable(request.path),
                        request.peer(), request.token ? request.token->name : std::string("none"),
                        response.status));
                }
            }};
    auto listener = net::HttpListener::open(std::move(listen), std::move(handlers));
    if (!listener) {
        if (listener.error().category == ErrorCategory::invalid_input && s.tls_cert) {
            return fail(ErrorCategory::invalid_input,
                        fmt::format("TLS: the certificate {}, key {}{} could not be loaded ({})",
                                    *s.tls_cert, *s.tls_key,
                                    s.tls_client_ca ? " or client CA " + *s.tls_client_ca : "",
                                    listener.error().what));
        }
        return std::unexpected(listener.error());
    }
    server->listener_ = std::move(*listener);
    server->port_ = server->listener_->port();
    server->thread_ = std::thread([raw] { raw->listener_->serve(); });
    return server;
}

void AgentServer::stop() {
    if (listener_) listener_->stop();
    if (thread_.joinable()) thread_.join();
}

std::optional<net::HttpResponse> AgentServer::admit(net::HttpRequest& request) const {
    // Health answers whatever the Host: it reveals nothing, and the kubelet's probes name
    // the pod's address, which no configuration knows in advance.
    if (request.path == "/healthz" || request.path == "/readyz") return std::nullopt;
    const std::vector<std::string>& allowed = settings_.allowed_hosts;
    if (!net::host_header_allowed(request.header("Host"), allowed)) {
        return respond(error_response(403, "permission",
                                      "the Host header does not name this agent (--allow-host)"));
    }
    // Header values are copies: the string_views below must outlive the call.
    const std::string origin_value = request.header("Origin");
    std::optional<std::string_view> origin;
    if (request.has_header("Origin")) origin = origin_value;
    if (!net::origin_allowed(origin, allowed)) {
        return respond(error_response(403, "permission", "cross-origin requests are refused"));
    }
    if (request.path == "/metrics" && loopback_) return std::nullopt;

    const Endpoint* endpoint = endpoint_at(request.path);
    const bool act = endpoint != nullptr && endpoint->act;
    const auto unauthenticated = [&](std::string_view why) {
        net::HttpResponse refused = respond(error_response(401, "unauthenticated", why));
        refused.set_header("WWW-Authenticate", "Bearer realm=\"gpukill\"");
        return refused;
    };
    if (!settings_.tokens) {
        return unauthenticated(
            "this agent has no token file (--token-file): only /metrics "
            "and health are served");
    }
    const std::string authorization = request.header("Authorization");
    const auto secret = net::bearer_secret(authorization);
    if (!secret || secret->empty()) {
        return unauthenticated("an Authorization: Bearer token is required");
    }
    const net::TokenEntry* token = settings_.tokens->match(*secret);
    if (token == nullptr) return unauthenticated("unknown token");
    if ((act && !token->can_act) || (!act && !token->can_read)) {
        return respond(error_response(403, "permission",
                                      fmt::format("token '{}' does not have the {} scope",
                                                  token->name, act ? "act" : "read")));
    }
    request.token = token;
    return std::nullopt;
}

net::HttpResponse AgentServer::handle(const net::HttpRequest& request) {
    // HEAD is answered as GET, without the body (the listener leaves it out).
    const std::string method = request.method == "HEAD" ? "GET" : request.method;
    const auto only_get = [&](const char* path) -> std::optional<net::HttpResponse> {
        if (method == "GET") return std::nullopt;
        net::HttpResponse wrong =
            respond(error_response(405, "invalid_input", fmt::format("{} takes GET", path)));
        wrong.set_header("Allow", "GET");
        return wrong;
    };
    if (request.path == "/healthz") {
        if (auto wrong = only_get("/healthz")) return *wrong;
        return net::HttpResponse{
            .status = 200, .content_type = "application/json", .body = "{\"status\":\"ok\"}\n"};
    }
    if (request.path == "/readyz") {
        if (auto wrong = only_get("/readyz")) return *wrong;
        if (!core_.ready())
            return respond(error_response(503, "unavailable", "no sample taken yet"));
        return net::HttpResponse{
            .status = 200, .content_type = "application/json", .body = "{\"status\":\"ready\"}\n"};
    }
    if (request.path == "/metrics") {
        if (auto wrong = only_get("/metrics")) return *wrong;
        const bool openmetrics = accepts_openmetrics(request.header("Accept"));
        const std::shared_ptr<const std::string> text = core_.metrics(openmetrics);
        if (!text) return respond(error_response(503, "unavailable", "no sample taken yet"));
        return net::HttpResponse{
            .status = 200,
            .content_type = openmetrics ? kOpenMetricsType : kPrometheusTextType,
            .body = *text};
    }
    const Endpoint* endpoint = endpoint_at(request.path);
    if (endpoint == nullptr) return respond(error_response(404, "not_found", "no such endpoint"));
    if (method != endpoint->method) {
        net::HttpResponse wrong = respond(error_response(
            405, "invalid_input", fmt::format("{} takes {}", request.path, endpoint->method)));
        wrong.set_header("Allow", endpoint->method);
        return wrong;
    }
    ApiRequest api{.method = method,
                   .path = request.path,
                   .params = request.params,
                   .body = request.body,
                   .actor = Actor{.interface = Interface::agent,
                                  .name = request.token ? request.token->name : "",
                                  .remote = request.peer()}};
    return respond(handle_api(core_, api));
}

}  // namespace gpukill::agent
