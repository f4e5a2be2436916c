// MCP revision 2026-07-28, the stateless one, beside the handshake revisions: no
// initialize and no session; every request carries its protocol version and the
// client's capabilities (and optionally its name) in params._meta, and the server
// answers server/discover with the versions and capabilities it has. Results carry
// resultType "complete", the list and read results the cache hints ttlMs and
// cacheScope, and every result names the server in _meta. Over HTTP the request's
// MCP-Protocol-Version and Mcp-Method headers (and Mcp-Name for tools/call, prompts/get
// and resources/read) must agree with the body.
//
// A request is served as 2026-07-28 when its _meta names a protocol version; anything
// else is served as the handshake revisions always were. Pure: values in, values out.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "mcp/jsonrpc.hpp"

namespace gpukill::mcp {

inline constexpr const char* kStatelessProtocolVersion = "2026-07-28";
inline constexpr const char* kMetaProtocolVersion = "io.modelcontextprotocol/protocolVersion";
inline constexpr const char* kMetaClientInfo = "io.modelcontextprotocol/clientInfo";
inline constexpr const char* kMetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities";
inline constexpr const char* kMetaServerInfo = "io.modelcontextprotocol/serverInfo";

enum class EnvelopeKind {
    none,         // no protocol version in _meta: a handshake-revision message
    valid,        // a 2026-07-28 envelope
    unsupported,  // a protocol version this server does not speak statelessly
    malformed,    // a version claimed, but the envelope is not well formed
};

struct Envelope {
    EnvelopeKind kind = EnvelopeKind::none;
    std::string protocol_version;  // as the request named it
    std::string client_name;       // clientInfo.name; empty when not given
    std::string problem;           // for malformed: which key, and what is wrong
};

// The envelope of a request's (or notification's) params.
Envelope read_envelope(const nlohmann::json& params);

// The error a request with this envelope gets instead of an answer; nothing for a
// valid or absent one. `id` is the request's.
std::optional<nlohmann::json> envelope_error(const nlohmann::json& id, const Envelope& envelope);

// Methods the stateless revision removed (the handshake, ping, logging/setLevel, the
// subscriptions): a stateless request for one is method-not-found.
bool removed_in_stateless_revision(std::string_view method);

// A handshake-revision answer made a 2026-07-28 one: resultType, the cache hints for
// list and read results (not cacheable here: the host changes under them), the server's
// identity in _meta, and a resource that does not exist as -32602 with its uri.
nlohmann::json as_stateless_answer(const std::string& method, nlohmann::json response,
                                   const nlohmann::json& server_info);

// The value the Mcp-Name header must carry for `method` (tools/call and prompts/get:
// params.name; resources/read: params.uri); nothing for other methods.
std::optional<std::string> mcp_name_of(const std::string& method, const nlohmann::json& params);

// An Mcp-Name (or Mcp-Param-*) header value as sent: "=?base64?...?=" decoded, anything
// else as it is. Nothing when the base64 is not valid.
std::optional<std::string> decode_mcp_header_value(std::string_view value);

}  // namespace gpukill::mcp
