// The agent's HTTP listener (net::HttpListener, TLS through OpenSSL): who may ask what,
// from where, and how much. docs/AGENT.md, "Security" and "Limits".
//
//   - 127.0.0.1 by default. Another address needs TLS (--tls-cert and --tls-key) or an
//     explicit --insecure-listen; otherwise start() refuses it.
//   - Bearer tokens (net::TokenSet: a private file, named tokens with scopes, compared
//     in constant time). /healthz and /readyz are open; /metrics is open on a loopback
//     listener and needs a read token elsewhere; every /v1 call needs a token, GETs the
//     read scope, kill and reset the act scope. No token: 401; the wrong scope: 403.
//     All of it is decided on the request's head, before its body is read.
//   - With --tls-client-ca, a client certificate signed by that CA is required (mTLS).
//   - Host must name loopback, the listen address or an --allow-host name, and an Origin
//     (a browser) must be one of them too: a page elsewhere cannot rebind its name to
//     this port. No CORS headers are ever sent.
//   - Bounded before anything is trusted (net/http_listener.hpp): a head of 16 KiB and
//     64 fields, a body of max_body_bytes in any framing (413), the whole request within
//     request_timeout_seconds (408), max_connections requests handled at once, twice that
//     many connections open, as many more answered 503 and closed, the rest closed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "agent/agent_core.hpp"
#include "model/result.hpp"
#include "net/access.hpp"

namespace gpukill::net {
class HttpListener;
struct HttpRequest;
struct HttpResponse;
}  // namespace gpukill::net

namespace gpukill::agent {

struct ListenAddress {
    std::string host;  // "127.0.0.1", "::1", "0.0.0.0"
    int port = 0;      // 0: any free port (the bound one is reported)
};

inline constexpr const char* kDefaultListen = "127.0.0.1:9402";

// "HOST:PORT" or "[IPV6]:PORT"; a port from 0 to 65535.
Result<ListenAddress> parse_listen_address(std::string_view text);

struct ServerSettings {
    ListenAddress listen;
    std::optional<std::string> tls_cert;
    std::optional<std::string> tls_key;
    std::optional<std::string> tls_client_ca;
    bool insecure_listen = false;
    std::optional<net::TokenSet> tokens;     // none: every /v1 call is 401
    std::vector<std::string> allowed_hosts;  // Host and Origin names besides loopback
    double request_timeout_seconds = 10;
    std::size_t max_connections = 32;  // handled at once; twice as many open
    std::size_t max_body_bytes = 64 * 1024;
};

class AgentServer {
  public:
    // Checks the settings (errors: invalid_input for a refused listen address or a TLS
    // file that is missing or readable by others), binds and starts serving on its own
    // threads. `core` outlives the server.
    static Result<std::unique_ptr<AgentServer>> start(ServerSettings settings, AgentCore& core);
    ~AgentServer();
    AgentServer(const AgentServer&) = delete;
    AgentServer& operator=(const AgentServer&) = delete;

    int port() const { return port_; }
    bool tls() const { return settings_.tls_cert.has_value(); }
    // Stops accepting, finishes the requests in progress, joins the threads.
    void stop();

  private:
    AgentServer(ServerSettings settings, AgentCore& core);
    // Host, Origin, token and scope, from the head alone: the refusal, or nothing.
    std::optional<net::HttpResponse> admit(net::HttpRequest& request) const;
    net::HttpResponse handle(const net::HttpRequest& request);

    ServerSettings settings_;
    AgentCore& core_;
    std::unique_ptr<net::HttpListener> listener_;
    bool loopback_ = true;
    int port_ = 0;
    std::thread thread_;
};

}  // namespace gpukill::agent
