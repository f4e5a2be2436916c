// JSON-RPC 2.0 as MCP uses it: one message per line (stdio) or per POST body (HTTP).
// Pure: text in, a classified message or the error response to send, out.
//
// MCP (2025-06-18 and later) forbids batches; a JSON array is answered with one Invalid
// Request error. Errors are the JSON-RPC codes: -32700 parse error, -32600 invalid
// request, -32601 method not found, -32602 invalid params, -32603 internal error.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

namespace gpukill::mcp {

namespace rpc_code {
inline constexpr int parse_error = -32700;
inline constexpr int invalid_request = -32600;
inline constexpr int method_not_found = -32601;
inline constexpr int invalid_params = -32602;
inline constexpr int internal_error = -32603;
// Implementation-defined server errors (-32000 to -32099).
inline constexpr int resource_not_found = -32002;
// Revision 2026-07-28: a request's protocol version the server does not speak, and an
// HTTP header that disagrees with the body it travels with.
inline constexpr int unsupported_protocol_version = -32022;
inline constexpr int header_mismatch = -32020;
}  // namespace rpc_code

// The largest message accepted: a request over it is answered, not parsed.
inline constexpr std::size_t kMaxMessageBytes = 4 << 20;

struct RpcRequest {
    nlohmann::json id;  // a string or an integer
    std::string method;
    nlohmann::json params;  // an object, or null when absent
};

struct RpcNotification {
    std::string method;
    nlohmann::json params;
};

// A response from the client (to a request of ours): accepted and ignored, since this
// server sends no requests.
struct RpcResponse {
    nlohmann::json id;
};

// An error to answer with; `id` is null when the request's id could not be read.
struct RpcFailure {
    nlohmann::json response;
};

using RpcMessage = std::variant<RpcRequest, RpcNotification, RpcResponse, RpcFailure>;

// Classifies one message. Never throws.
RpcMessage parse_message(std::string_view text, std::size_t max_bytes = kMaxMessageBytes);

// The same, over JSON already parsed (an HTTP body read once).
RpcMessage classify_message(const nlohmann::json& message);

nlohmann::json result_response(const nlohmann::json& id, nlohmann::json result);
nlohmann::json error_response(const nlohmann::json& id, int code, std::string_view message,
                              std::optional<nlohmann::json> data = std::nullopt);

// One line of text: the message serialised without newlines (invalid UTF-8 replaced).
std::string to_line(const nlohmann::json& message);

}  // namespace gpukill::mcp
