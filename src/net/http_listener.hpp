// The HTTP/1.1 listener of the agent's API and of MCP over HTTP: every resource a peer
// can take is bounded before it is authenticated.
//
//   - One thread reads every connection (epoll): TLS handshakes, request heads and
//     bodies. A slow or stalled peer costs a buffer there, never a worker: workers only
//     run handlers on complete requests.
//   - Per request: the head (start line and headers) in bytes and in number of fields,
//     the body after de-chunking (every framing), and time: the whole request, TLS
//     handshake included on a new connection, within `request_seconds` from its first
//     byte (a peer dripping a byte a second is cut off, not just one idle for long);
//     an answer is written within `write_seconds`; a kept-alive connection waits
//     `idle_seconds` for the next request.
//   - `admit` sees the head before the body is read: a request it refuses (no token, a
//     foreign Host) is answered at once and its body never read.
//   - Bodies being received or handled together hold at most
//     `max_body_bytes_in_flight`; a request that would pass it is answered 503.
//   - At most `max_connections` connections are open; as many more are accepted only to
//     be answered 503 (after the TLS handshake on a TLS listener) and closed; beyond
//     that a connection is closed at once. The process never nears its descriptor limit
//     (a spare descriptor is kept to shed connections even at EMFILE).
//   - Complete requests wait for a worker, at most `max_queued` of them; beyond, 503.
//
// Resident memory is therefore bounded by about
//   (max_connections x 2) x (max_head_bytes + 16 KiB read buffer + TLS state)
//   + max_body_bytes_in_flight + workers x (one answer)
// whatever peers send (docs/AGENT.md and docs/MCP.md give the measured figures).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"
#include "net/access.hpp"
#include "net/http_message.hpp"

namespace gpukill::net {

struct HttpRequest {
    std::string method;
    std::string target;                              // "/v1/snapshot?x=1"
    std::string path;                                // "/v1/snapshot"
    std::multimap<std::string, std::string> params;  // the query, percent-decoded
    HttpFields fields;
    int minor_version = 1;
    std::string body;
    std::string remote_address;  // "127.0.0.1", "::1"
    std::uint16_t remote_port = 0;
    std::string local_address;
    std::uint16_t local_port = 0;
    // Who the admission check found the request comes from (a bearer token's entry in
    // a TokenSet that outlives the listener); nullptr when none.
    const TokenEntry* token = nullptr;

    std::string header(std::string_view name) const { return fields.value(name); }
    bool has_header(std::string_view name) const { return fields.has(name); }
    // "127.0.0.1:5000", "[::1]:5000".
    std::string peer() const;
};

struct HttpResponse {
    int status = 200;
    std::string content_type;
    std::string body;
    std::vector<HttpField> headers;  // besides Content-Type, Content-Length, Connection
    bool close = false;              // end the connection after this answer

    void set_header(std::string name, std::string value);
};

struct TlsFiles {
    std::string certificate;
    std::string key;
    std::optional<std::string> client_ca;  // clients must present a certificate it signed
};

struct HttpListenerSettings {
    std::string host = "127.0.0.1";
    int port = 0;  // 0: any free port
    std::optional<TlsFiles> tls;
    HttpLimits limits;
    double request_seconds = 10;
    double idle_seconds = 5;
    double write_seconds = 10;
    std::size_t workers = 4;
    std::size_t max_connections = 64;
    std::size_t max_queued = 64;
    std::size_t max_body_bytes_in_flight = 4u << 20;
    std::size_t max_requests_per_connection = 100;
};

struct HttpHandlers {
    // After the head, before the body (on the listener's thread: keep it quick).
    // nullopt admits the request; an answer refuses it: sent at once, the body never
    // read, the connection closed. May set request.token.
    std::function<std::optional<HttpResponse>(HttpRequest& request)> admit;
    // The answer to a complete, admitted request (on a worker thread).
    std::function<HttpResponse(const HttpRequest& request)> handle;
    // The answer the listener gives by itself: 400, 408, 413, 414, 431, 500, 501, 503,
    // 505, with why.
    std::function<HttpResponse(int status, const std::string& reason)> refusal;
    // After each answer is written (logs, counters); `request` holds what was read of it,
    // without its body. On a worker once the connection is released, or on the
    // listener's thread for the answers it gives itself: it may wait briefly, not long.
    std::function<void(const HttpRequest& request, const HttpResponse& response)> answered;
};

class HttpListener {
  public:
    // Binds and loads the TLS files. Errors: invalid_input (TLS files, settings),
    // unavailable (the address cannot be bound).
    static Result<std::unique_ptr<HttpListener>> open(HttpListenerSettings settings,
                                                      HttpHandlers handlers);
    ~HttpListener();
    HttpListener(const HttpListener&) = delete;
    HttpListener& operator=(const HttpListener&) = delete;

    int port() const;
    bool tls() const;
    // Serves on the calling thread (and the workers it starts) until stop(); returns
    // once the requests being handled have been answered.
    void serve();
    // From any thread; returns at once.
    void stop();

  private:
    struct Impl;
    explicit HttpListener(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// The bytes of `response` on the wire. `keep_alive`: announce it (with the idle
// timeout and the requests left); `head_only`: the answer to a HEAD, without its body.
std::string serialize_response(const HttpResponse& response, bool keep_alive, bool head_only,
                               double idle_seconds, std::size_t requests_left);

}  // namespace gpukill::net
