// MCP over Streamable HTTP (specification 2025-03-26 and later): one endpoint, /mcp.
//   POST  one JSON-RPC message; a request is answered with application/json, or with a
//         text/event-stream of one event when the client accepts only that; a
//         notification or response with 202. initialize opens a session: the answer's
//         Mcp-Session-Id header names it, and every later request must carry it (400
//         without, 404 for an unknown or ended one). MCP-Protocol-Version, when sent,
//         must be a supported version (400 otherwise).
//         A request of the stateless revision 2026-07-28 (params._meta names its
//         protocol version) needs no session and opens none; its MCP-Protocol-Version
//         and Mcp-Method headers, and Mcp-Name for tools/call, prompts/get and
//         resources/read, must agree with the body (400, -32020 otherwise), and a
//         version or envelope the server cannot take is 400 too.
//   GET   405: this server sends nothing unprompted, so there is no stream to open.
//   DELETE ends the session.
// Security: the listener binds 127.0.0.1 unless told otherwise; a foreign Origin is 403
// and a Host that is not loopback or an allowed name is 403 (DNS rebinding); with a
// token file every request needs `Authorization: Bearer SECRET` (401), and action tools
// need a token with the act scope. All of that is decided on the request's head,
// before its body is read. A session belongs to the token that opened it: another
// token naming it (to use it or DELETE it) is told it does not exist (404). Sessions
// are bounded (the longest idle one is dropped for a new one) and expire when idle.
// Limits (net/http_listener.hpp): a head of 16 KiB and 64 fields, a body (any framing)
// of kMaxMessageBytes (413), 8 of them in flight at once, the whole request within
// 30 s (408), 64 connections open (as many more answered 503, the rest closed); slow
// peers are read by the listener's event loop and never hold a worker.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mcp/server.hpp"
#include "net/access.hpp"

namespace gpukill::mcp {

struct HttpOptions {
    std::string address = "127.0.0.1";
    int port = 9440;                         // 0: any free port
    std::vector<std::string> allowed_hosts;  // Host and Origin names besides loopback
    std::optional<net::TokenSet> tokens;     // empty: no authentication (read-only only)
    std::size_t max_sessions = 64;
    std::chrono::seconds session_idle{3600};
    unsigned threads = 4;              // handlers at once
    std::size_t max_connections = 64;  // open at once; as many more are answered 503
    double request_seconds = 30;       // one whole request, from its first byte
};

// Binds, then calls `ready(port)` with the port bound, then serves until stop() is
// called from another thread (or a signal handler thread). Returns 0, or 1 with
// `error` set when the address cannot be bound.
class HttpTransport {
  public:
    HttpTransport(Server& server, HttpOptions options);
    ~HttpTransport();
    HttpTransport(const HttpTransport&) = delete;
    HttpTransport& operator=(const HttpTransport&) = delete;

    int serve(const std::function<void(int port)>& ready, std::string& error);
    void stop();

  private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace gpukill::mcp
