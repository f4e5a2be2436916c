#include "mcp/jsonrpc.hpp"

#include "model/bounded_json.hpp"

namespace gpukill::mcp {
namespace {

bool valid_id(const nlohmann::json& id) {
    return id.is_string() || id.is_number_integer();
}

}  // namespace

nlohmann::json result_response(const nlohmann::json& id, nlohmann::json result) {
    return nlohmann::json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

nlohmann::json error_response(const nlohmann::json& id, int code, std::string_view message,
                              std::optional<nlohmann::json> data) {
    nlohmann::json error{{"code", code}, {"message", std::string(message)}};
    if (data) error["data"] = std::move(*data);
    return nlohmann::json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}};
}

std::string to_line(const nlohmann::json& message) {
    // dump() escapes control characters, so the line holds no raw newline.
    return message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

RpcMessage classify_message(const nlohmann::json& message) {
    if (message.is_array()) {
        return RpcFailure{error_response(nullptr, rpc_code::invalid_request,
                                         "batches are not supported (MCP sends one message)")};
    }
    if (!message.is_object()) {
        return RpcFailure{
            error_response(nullptr, rpc_code::invalid_request, "a message is a JSON object")};
    }
    const auto id = message.find("id");
    const bool has_id = id != message.end();
    const nlohmann::json reply_id = has_id && valid_id(*id) ? *id : nlohmann::json(nullptr);
    const auto version = message.find("jsonrpc");
    if (version == message.end() || *version != "2.0") {
        return RpcFailure{
            error_response(reply_id, rpc_code::invalid_request, "jsonrpc must be \"2.0\"")};
    }
    if (has_id && !valid_id(*id)) {
        return RpcFailure{error_response(nullptr, rpc_code::invalid_request,
                                         "id must be a string or an integer")};
    }
    const auto method = message.find("method");
    if (method == message.end()) {
        if (has_id && (message.contains("result") || message.contains("error"))) {
            return RpcResponse{*id};
        }
        return RpcFailure{error_response(reply_id, rpc_code::invalid_request, "method missing")};
    }
    if (!method->is_string()) {
        return RpcFailure{
            error_response(reply_id, rpc_code::invalid_request, "method must be a string")};
    }
    nlohmann::json params = nullptr;
    if (const auto found = message.find("params"); found != message.end()) {
        if (!found->is_object()) {
            return RpcFailure{
                error_response(reply_id, rpc_code::invalid_params, "params must be an object")};
        }
        params = *found;
    }
    if (!has_id) return RpcNotification{method->get<std::string>(), std::move(params)};
    return RpcRequest{*id, method->get<std::string>(), std::move(params)};
}

RpcMessage parse_message(std::string_view text, std::size_t max_bytes) {
    if (text.size() > max_bytes) {
        return RpcFailure{error_response(nullptr, rpc_code::invalid_request,
                                         "message of " + std::to_string(text.size()) +
                                             " bytes is over the limit of " +
                                             std::to_string(max_bytes))};
    }
    auto message = parse_json_bounded(text, JsonBounds{.max_bytes = max_bytes});
    if (!message) {
        // Too deep is valid JSON this server will not hold; anything else is not JSON.
        if (message.error().kind == JsonRefusal::Kind::too_deep) {
            return RpcFailure{error_response(nullptr, rpc_code::invalid_request,
                                             "message " + message.error().what)};
        }
        return RpcFailure{error_response(nullptr, rpc_code::parse_error, "not valid JSON")};
    }
    return classify_message(*message);
}

}  // namespace gpukill::mcp
