// One HTTP/1.1 request to a server that may be hostile (the fleet's agents): bounded in
// what it keeps (the reply's head in bytes and fields, its body after de-chunking) and
// in time (one deadline for connecting, TLS, writing and reading, whatever the server
// drips), and stopped within a tenth of a second when the caller says so (Ctrl-C,
// SIGTERM). One connection per request ("Connection: close").
//
// Names are resolved once, here, and the addresses connected to are the ones resolved:
// a caller decides what an address may receive (plain HTTP only to loopback) on the
// address itself, never on the name, which anyone can make look like "127.x".
#pragma once

#include <sys/socket.h>

#include <chrono>
#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/result.hpp"
#include "net/http_message.hpp"
#include "net/socket_channel.hpp"

namespace gpukill::net {

struct ResolvedAddress {
    sockaddr_storage address{};
    socklen_t length = 0;
    std::string text;  // "127.0.0.1", "::1"
    bool loopback = false;
};

// Every address `host` resolves to (a name through the system's resolver, or a
// literal), with `port`. Errors: unavailable, naming the host.
Result<std::vector<ResolvedAddress>> resolve_host(const std::string& host, unsigned port);

struct HttpClientRequest {
    std::string method = "GET";
    std::string target = "/";
    std::string host_header;  // "node01:9402"
    std::vector<HttpField> headers;
    std::optional<std::string> body;  // sent with its Content-Length
};

struct HttpClientSettings {
    const TlsContext* tls = nullptr;                 // HTTPS when set
    std::string server_name;                         // checked against the server's certificate
    std::chrono::steady_clock::time_point deadline;  // for the whole exchange
    double connect_seconds = 10;                     // for each address tried
    HttpLimits limits{.max_head_bytes = 64 * 1024, .max_headers = 100, .max_body_bytes = 64u << 20};
    std::function<bool()> cancelled;  // polled at least every 100 ms
};

enum class HttpClientFailure {
    cannot_connect,
    connect_timeout,
    tls_handshake,
    tls_verification,
    timeout,    // the deadline passed
    cancelled,  // the caller said stop
    too_large,  // the reply's head or body over its limit
    malformed,  // not an HTTP reply, or it ended early
};

struct HttpClientError {
    HttpClientFailure kind;
    std::string detail;
};

struct HttpClientReply {
    int status = 0;
    HttpFields fields;
    std::string body;
};

// Connects to the addresses in turn until one answers, sends `request`, reads the reply.
std::expected<HttpClientReply, HttpClientError> http_exchange(
    const std::vector<ResolvedAddress>& addresses, const HttpClientRequest& request,
    const HttpClientSettings& settings);

}  // namespace gpukill::net
