#include "mcp/stateless_revision.hpp"

#include <array>

namespace gpukill::mcp {
namespace {

constexpr std::array<std::string_view, 6> kRemovedMethods = {"initialize",
                                                             "ping",
                                                             "logging/setLevel",
                                                             "resources/subscribe",
                                                             "resources/unsubscribe",
                                                             "notifications/initialized"};

constexpr std::array<std::string_view, 6> kCacheableMethods = {
    "server/discover", "tools/list",     "prompts/list",
    "resources/list",  "resources/read", "resources/templates/list"};

int base64_digit(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

}  // namespace

Envelope read_envelope(const nlohmann::json& params) {
    Envelope envelope;
    if (!params.is_object()) return envelope;
    const auto meta = params.find("_meta");
    if (meta == params.end() || !meta->is_object()) return envelope;
    const auto version = meta->find(kMetaProtocolVersion);
    if (version == meta->end()) return envelope;
    envelope.kind = EnvelopeKind::malformed;
    if (!version->is_string()) {
        envelope.problem = std::string("_meta.") + kMetaProtocolVersion + " must be a string";
        return envelope;
    }
    envelope.protocol_version = version->get<std::string>();
    if (envelope.protocol_version != kStatelessProtocolVersion) {
        envelope.kind = EnvelopeKind::unsupported;
        return envelope;
    }
    const auto capabilities = meta->find(kMetaClientCapabilities);
    if (capabilities == meta->end() || !capabilities->is_object()) {
        envelope.problem =
            std::string("_meta.") + kMetaClientCapabilities + " is required, an object";
        return envelope;
    }
    if (const auto info = meta->find(kMetaClientInfo); info != meta->end()) {
        if (!info->is_object()) {
            envelope.problem = std::string("_meta.") + kMetaClientInfo + " must be an object";
            return envelope;
        }
        if (const auto name = info->find("name"); name != info->end() && name->is_string()) {
            envelope.client_name = name->get<std::string>();
        }
    }
    envelope.kind = EnvelopeKind::valid;
    return envelope;
}

std::optional<nlohmann::json> envelope_error(const nlohmann::json& id, const Envelope& envelope) {
    switch (envelope.kind) {
        case EnvelopeKind::none:
        case EnvelopeKind::valid:
            return std::nullopt;
        case EnvelopeKind::unsupported:
            return error_response(
                id, rpc_code::unsupported_protocol_version,
                "unsupported protocol version " + envelope.protocol_version +
                    " (this server speaks 2026-07-28 per request, older revisions after "
                    "initialize)",
                nlohmann::json{{"supported", nlohmann::json::array({kStatelessProtocolVersion})},
                               {"requested", envelope.protocol_version}});
        case EnvelopeKind::malformed:
            return error_response(id, rpc_code::invalid_params, envelope.problem);
    }
    return std::nullopt;
}

bool removed_in_stateless_revision(std::string_view method) {
    for (std::string_view removed : kRemovedMethods) {
        if (method == removed) return true;
    }
    return false;
}

nlohmann::json as_stateless_answer(const std::string& method, nlohmann::json response,
                                   const nlohmann::json& server_info) {
    if (auto error = response.find("error"); error != response.end() && error->is_object()) {
        // 2026-07-28 names a missing resource as invalid params carrying its uri.
        if ((*error)["code"] == rpc_code::resource_not_found) {
            (*error)["code"] = rpc_code::invalid_params;
        }
        return response;
    }
    auto result = response.find("result");
    if (result == response.end() || !result->is_object()) return response;
    (*result)["resultType"] = "complete";
    for (std::string_view cacheable : kCacheableMethods) {
        if (method == cacheable) {
            (*result)["ttlMs"] = 0;
            (*result)["cacheScope"] = "private";
        }
    }
    nlohmann::json& meta = (*result)["_meta"];
    if (!meta.is_object()) meta = nlohmann::json::object();
    meta[kMetaServerInfo] = server_info;
    return response;
}

std::optional<std::string> mcp_name_of(const std::string& method, const nlohmann::json& params) {
    const char* key = nullptr;
    if (method == "tools/call" || method == "prompts/get") key = "name";
    if (method == "resources/read") key = "uri";
    if (key == nullptr) return std::nullopt;
    if (!params.is_object()) return std::string();
    const auto value = params.find(key);
    if (value == params.end() || !value->is_string()) return std::string();
    return value->get<std::string>();
}

std::optional<std::string> decode_mcp_header_value(std::string_view value) {
    constexpr std::string_view prefix = "=?base64?";
    constexpr std::string_view suffix = "?=";
    if (value.size() < prefix.size() + suffix.size() || !value.starts_with(prefix) ||
        !value.ends_with(suffix)) {
        return std::string(value);
    }
    value.remove_prefix(prefix.size());
    value.remove_suffix(suffix.size());
    std::string out;
    unsigned bits = 0;
    int count = 0;
    std::size_t padding = 0;
    for (char c : value) {
        if (c == '=') {
            ++padding;
            continue;
        }
        if (padding > 0) return std::nullopt;  // data after padding
        const int digit = base64_digit(c);
        if (digit < 0) return std::nullopt;
        bits = (bits << 6) | static_cast<unsigned>(digit);
        count += 6;
        if (count >= 8) {
            count -= 8;
            out.push_back(static_cast<char>((bits >> count) & 0xFF));
        }
    }
    if (padding > 2) return std::nullopt;
    return out;
}

}  // namespace gpukill::mcp
