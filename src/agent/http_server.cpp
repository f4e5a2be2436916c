#include "agent/http_server.hpp"

#include <fmt/format.h>
#include <httplib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>

#include "agent/api.hpp"
#include "model/human_format.hpp"

namespace gpukill::agent {
namespace {

// Set on the thread that serves a connection beyond the cap: answered 503 at once.
thread_local bool t_shed_connection = false;
// The token the request being routed on this thread presented (set by the pre-routing
// check, read by the handler on the same thread).
thread_local const net::TokenEntry* t_request_token = nullptr;

// cpp-httplib's thread pool, bounded: `workers` connections served at once, as many
// more waiting; a connection beyond that goes to one shedding thread that answers it
// 503 and closes it (the function owns the socket, so it must be run, never dropped).
class CappedPool final : public httplib::TaskQueue {
  public:
    explicit CappedPool(std::size_t workers) : max_waiting_(workers) {
        for (std::size_t i = 0; i < workers; ++i) threads_.emplace_back([this] { work(false); });
        threads_.emplace_back([this] { work(true); });
    }

    void enqueue(std::function<void()> fn) override {
        {
            std::lock_guard lock(mutex_);
            if (waiting_.size() < max_waiting_) {
                waiting_.push_back(std::move(fn));
            } else {
                shed_.push_back(std::move(fn));
            }
        }
        ready_.notify_all();
    }

    void shutdown() override {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        ready_.notify_all();
        for (std::thread& thread : threads_) thread.join();
        threads_.clear();
    }

  private:
    void work(bool shedding) {
        t_shed_connection = shedding;
        for (;;) {
            std::function<void()> fn;
            {
                std::unique_lock lock(mutex_);
                std::deque<std::function<void()>>& queue = shedding ? shed_ : waiting_;
                ready_.wait(lock, [&] { return stopping_ || !queue.empty(); });
                if (queue.empty()) return;  // stopping, and nothing left to serve
                fn = std::move(queue.front());
                queue.pop_front();
            }
            fn();
        }
    }

    std::size_t max_waiting_;
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::function<void()>> waiting_;
    std::deque<std::function<void()>> shed_;
    bool stopping_ = false;
    std::vector<std::thread> threads_;
};

void respond(httplib::Response& res, const ApiResponse& answer) {
    res.status = answer.status;
    res.set_content(answer.body, "application/json");
}

bool is_wildcard(const std::string& host) {
    return host == "0.0.0.0" || host == "::";
}

std::string peer_address(const httplib::Request& req) {
    const bool v6 = req.remote_addr.find(':') != std::string::npos;
    return v6 ? fmt::format("[{}]:{}", req.remote_addr, req.remote_port)
              : fmt::format("{}:{}", req.remote_addr, req.remote_port);
}

const Endpoint* endpoint_at(const std::string& path) {
    for (const Endpoint& endpoint : api_endpoints()) {
        if (path == endpoint.path) return &endpoint;
    }
    return nullptr;
}

// The body of an error cpp-httplib answered by itself (no route, too large, malformed).
ApiResponse library_error(int status) {
    switch (status) {
        case 404:
            return error_response(404, "not_found", "no such endpoint");
        case 413:
            return error_response(413, "invalid_input", "the request body is too large");
        case 414:
            return error_response(414, "invalid_input", "the request target is too long");
        case 400:
            return error_response(400, "invalid_input", "malformed request");
        default:
            return error_response(status, status >= 500 ? "internal" : "invalid_input",
                                  fmt::format("HTTP {}", status));
    }
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
    if (s.tls_cert) {
        auto tls = std::make_unique<httplib::SSLServer>(
            s.tls_cert->c_str(), s.tls_key->c_str(),
            s.tls_client_ca ? s.tls_client_ca->c_str() : nullptr);
        if (!tls->is_valid()) {
            return fail(ErrorCategory::invalid_input,
                        fmt::format("TLS: the certificate {}, key {}{} could not be loaded",
                                    *s.tls_cert, *s.tls_key,
                                    s.tls_client_ca ? " or client CA " + *s.tls_client_ca : ""));
        }
        server->server_ = std::move(tls);
    } else {
        server->server_ = std::make_unique<httplib::Server>();
    }
    httplib::Server& http = *server->server_;
    const auto timeout = std::chrono::duration<double>(s.request_timeout_seconds);
    http.set_read_timeout(std::chrono::duration_cast<std::chrono::microseconds>(timeout));
    http.set_write_timeout(std::chrono::duration_cast<std::chrono::microseconds>(timeout));
    http.set_keep_alive_timeout(5);
    http.set_keep_alive_max_count(100);
    http.set_payload_max_length(s.max_body_bytes);
    const std::size_t workers = s.max_connections;
    http.new_task_queue = [workers] { return new CappedPool(workers); };
    server->install_routes();

    const int port = s.listen.port == 0
                         ? http.bind_to_any_port(host)
                         : (http.bind_to_port(host, s.listen.port) ? s.listen.port : -1);
    if (port < 0) {
        const int error = errno;
        return fail(ErrorCategory::unavailable,
                    fmt::format("cannot listen on {}:{}: {}", host, s.listen.port,
                                error != 0 ? std::strerror(error) : "bind failed"));
    }
    server->port_ = port;
    server->thread_ = std::thread([raw = server.get()] { raw->server_->listen_after_bind(); });
    return server;
}

void AgentServer::stop() {
    if (server_) server_->stop();
    if (thread_.joinable()) thread_.join();
}

void AgentServer::install_routes() {
    httplib::Server& http = *server_;
    using httplib::Server;

    http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
        t_request_token = nullptr;
        if (t_shed_connection) {
            respond(res, error_response(503, "unavailable", "too many connections; try again"));
            res.set_header("Connection", "close");
            return Server::HandlerResponse::Handled;
        }
        // Health answers whatever the Host: it reveals nothing, and the kubelet's probes
        // name the pod's address, which no configuration knows in advance.
        if (req.path == "/healthz" || req.path == "/readyz")
            return Server::HandlerResponse::Unhandled;
        const std::vector<std::string>& allowed = settings_.allowed_hosts;
        if (!net::host_header_allowed(req.get_header_value("Host"), allowed)) {
            respond(res, error_response(403, "permission",
                                        "the Host header does not name this agent (--allow-host)"));
            return Server::HandlerResponse::Handled;
        }
        // Header values are copies: the string_views below must outlive the call.
        const std::string origin_value = req.get_header_value("Origin");
        std::optional<std::string_view> origin;
        if (req.has_header("Origin")) origin = origin_value;
        if (!net::origin_allowed(origin, allowed)) {
            respond(res, error_response(403, "permission", "cross-origin requests are refused"));
            return Server::HandlerResponse::Handled;
        }
        if (req.path == "/metrics" && loopback_) return Server::HandlerResponse::Unhandled;

        const Endpoint* endpoint = endpoint_at(req.path);
        const bool act = endpoint != nullptr && endpoint->act;
        const auto unauthenticated = [&](std::string_view why) {
            respond(res, error_response(401, "unauthenticated", why));
            res.set_header("WWW-Authenticate", "Bearer realm=\"gpukill\"");
            return Server::HandlerResponse::Handled;
        };
        if (!settings_.tokens) {
            return unauthenticated(
                "this agent has no token file (--token-file): only /metrics "
                "and health are served");
        }
        const std::string authorization = req.get_header_value("Authorization");
        const auto secret = net::bearer_secret(authorization);
        if (!secret || secret->empty())
            return unauthenticated("an Authorization: Bearer token is required");
        const net::TokenEntry* token = settings_.tokens->match(*secret);
        if (token == nullptr) return unauthenticated("unknown token");
        if ((act && !token->can_act) || (!act && !token->can_read)) {
            respond(res, error_response(403, "permission",
                                        fmt::format("token '{}' does not have the {} scope",
                                                    token->name, act ? "act" : "read")));
            return Server::HandlerResponse::Handled;
        }
        t_request_token = token;
        return Server::HandlerResponse::Unhandled;
    });

    http.set_error_handler([](const httplib::Request&, httplib::Response& res) {
        if (res.body.empty()) respond(res, library_error(res.status));
    });
    http.set_exception_handler(
        [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
            respond(res, error_response(500, "internal", "the agent failed to answer"));
        });
    http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
        core_.count_response(res.status);
        if (req.method == "POST") {
            core_.log(fmt::format(
                "{} {} from {} (token {}): {}", req.method, req.path, peer_address(req),
                t_request_token ? t_request_token->name : std::string("none"), res.status));
        }
    });

    http.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
        res.set_content("{\"status\":\"ok\"}\n", "application/json");
    });
    http.Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
        if (core_.ready()) {
            res.set_content("{\"status\":\"ready\"}\n", "application/json");
        } else {
            respond(res, error_response(503, "unavailable", "no sample taken yet"));
        }
    });
    http.Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
        const bool openmetrics = accepts_openmetrics(req.get_header_value("Accept"));
        const std::shared_ptr<const std::string> text = core_.metrics(openmetrics);
        if (!text) {
            respond(res, error_response(503, "unavailable", "no sample taken yet"));
            return;
        }
        res.set_content(*text, openmetrics ? kOpenMetricsType : kPrometheusTextType);
    });

    const auto api = [this](const httplib::Request& req, httplib::Response& res) {
        ApiRequest request{.method = req.method,
                           .path = req.path,
                           .params = req.params,
                           .body = req.body,
                           .actor = Actor{.interface = Interface::agent,
                                          .name = t_request_token ? t_request_token->name : "",
                                          .remote = peer_address(req)}};
        respond(res, handle_api(core_, request));
    };
    const auto wrong_method = [](const httplib::Request& req, httplib::Response& res) {
        const Endpoint* endpoint = endpoint_at(req.path);
        respond(res, error_response(405, "invalid_input",
                                    fmt::format("{} takes {}", req.path, endpoint->method)));
        res.set_header("Allow", endpoint->method);
    };
    for (const Endpoint& endpoint : api_endpoints()) {
        if (std::string_view(endpoint.method) == "GET") {
            http.Get(endpoint.path, api);
            http.Post(endpoint.path, wrong_method);
        } else {
            http.Post(endpoint.path, api);
            http.Get(endpoint.path, wrong_method);
        }
    }
}

}  // namespace gpukill::agent
