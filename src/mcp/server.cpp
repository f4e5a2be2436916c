#include "mcp/server.hpp"

#include <algorithm>
#include <array>

#include "mcp/catalog.hpp"
#include "mcp/stateless_revision.hpp"

namespace gpukill::mcp {
namespace {

constexpr std::size_t kMaxClientNameChars = 64;

constexpr std::array<const char*, 8> kLogLevels = {"debug", "info",     "notice", "warning",
                                                   "error", "critical", "alert",  "emergency"};

nlohmann::json invalid_params(const nlohmann::json& id, std::string message) {
    return error_response(id, rpc_code::invalid_params, message);
}

}  // namespace

std::string actor_name_for(std::string_view client_name) {
    std::string name;
    for (char c : client_name) {
        if (name.size() >= kMaxClientNameChars) break;
        const bool kept = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                          (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_' || c == ' ';
        name.push_back(kept ? c : '_');
    }
    return "mcp:" + (name.empty() ? std::string("unknown") : name);
}

Server::Server(engine::Engine& engine, ServerOptions options)
    : engine_(engine),
      options_(std::move(options)),
      plans_(options_.plan_validity),
      tools_(read_tools()) {
    if (options_.allow_actions) {
        for (Tool& tool : action_tools()) tools_.push_back(std::move(tool));
    }
}

Actor Server::actor_of(const Session& session) const {
    return Actor{.interface = Interface::mcp,
                 .name = actor_name_for(session.client_name),
                 .remote = session.remote};
}

std::optional<nlohmann::json> Server::handle_text(Session& session, std::string_view text) {
    return handle(session, parse_message(text));
}

std::optional<nlohmann::json> Server::handle(Session& session, const RpcMessage& message) {
    if (const auto* failure = std::get_if<RpcFailure>(&message)) return failure->response;
    if (std::holds_alternative<RpcNotification>(message)) return std::nullopt;
    if (std::holds_alternative<RpcResponse>(message)) return std::nullopt;
    const RpcRequest& request = std::get<RpcRequest>(message);
    try {
        const Envelope envelope = read_envelope(request.params);
        if (envelope.kind != EnvelopeKind::none)
            return handle_stateless(session, request, envelope);
        return dispatch(session, request);
    } catch (const std::exception& e) {
        // A bug of ours must not end the server for every other client.
        return error_response(request.id, rpc_code::internal_error,
                              std::string("internal error: ") + e.what());
    }
}

nlohmann::json Server::dispatch(Session& session, const RpcRequest& request) {
    const std::string& method = request.method;
    if (method == "initialize") return initialize(session, request);
    if (method == "ping") return result_response(request.id, nlohmann::json::object());
    if (!session.initialized) {
        return error_response(request.id, rpc_code::invalid_request,
                              "the session is not initialized: send initialize first");
    }
    if (method == "tools/list") {
        nlohmann::json tools = nlohmann::json::array();
        for (const Tool& tool : tools_) {
            if (!tool.action || session.may_act)
                tools.push_back(nlohmann::json(tool_listing(tool)));
        }
        return result_response(request.id, nlohmann::json{{"tools", tools}});
    }
    if (method == "tools/call") return call_tool(session, request);
    if (method == "resources/list") {
        std::lock_guard lock(mutex_);
        return result_response(request.id, resource_listing(engine_));
    }
    if (method == "resources/templates/list") {
        return result_response(request.id, resource_templates());
    }
    if (method == "resources/read") return read_resource(request);
    if (method == "prompts/list") return result_response(request.id, prompt_listing());
    if (method == "prompts/get") return get_prompt(request);
    if (method == "completion/complete") {
        std::lock_guard lock(mutex_);
        return result_response(request.id, completion_values(engine_, request.params));
    }
    if (method == "logging/setLevel") {
        const auto level = request.params.is_object() ? request.params.find("level")
                                                      : nlohmann::json::const_iterator{};
        if (!request.params.is_object() || level == request.params.end() || !level->is_string() ||
            std::find(kLogLevels.begin(), kLogLevels.end(), level->get<std::string>()) ==
                kLogLevels.end()) {
            return invalid_params(request.id,
                                  "level: one of debug, info, notice, warning, "
                                  "error, critical, alert, emergency");
        }
        session.log_level = level->get<std::string>();
        return result_response(request.id, nlohmann::json::object());
    }
    return error_response(request.id, rpc_code::method_not_found, "unknown method: " + method);
}

nlohmann::json Server::handle_stateless(const Session& transport, const RpcRequest& request,
                                        const Envelope& envelope) {
    if (auto refused = envelope_error(request.id, envelope)) return *refused;
    if (removed_in_stateless_revision(request.method)) {
        return error_response(
            request.id, rpc_code::method_not_found,
            request.method + " does not exist in protocol revision " + kStatelessProtocolVersion);
    }
    // Nothing carries over between requests: the transport's own session (stdio's, or an
    // HTTP connection's token scope and peer) gives only who may act and from where.
    Session per_request{.initialized = true,
                        .protocol_version = kStatelessProtocolVersion,
                        .client_name = envelope.client_name,
                        .remote = transport.remote,
                        .log_level = "info",
                        .may_act = transport.may_act};
    nlohmann::json answer =
        request.method == "server/discover"
            ? result_response(request.id,
                              nlohmann::json{{"supportedVersions", supported_versions()},
                                             {"capabilities", capabilities(false)},
                                             {"instructions", instructions()}})
            : dispatch(per_request, request);
    return as_stateless_answer(request.method, std::move(answer), server_info());
}

nlohmann::json Server::supported_versions() {
    nlohmann::json versions = nlohmann::json::array({kStatelessProtocolVersion});
    for (const char* version : kProtocolVersions) versions.push_back(version);
    return versions;
}

nlohmann::json Server::capabilities(bool with_logging) {
    nlohmann::json capabilities{
        {"tools", {{"listChanged", false}}},
        {"resources", {{"subscribe", false}, {"listChanged", false}}},
        {"prompts", {{"listChanged", false}}},
        {"completions", nlohmann::json::object()},
    };
    // logging/setLevel exists only in the handshake revisions.
    if (with_logging) capabilities["logging"] = nlohmann::json::object();
    return capabilities;
}

nlohmann::json Server::server_info() const {
    return {{"name", "gpukill"}, {"title", "gpukill"}, {"version", options_.server_version}};
}

std::string Server::instructions() const {
    return options_.allow_actions
               ? "gpukill sees what holds this host's GPUs and gives them back safely. Read "
                 "with list_gpus, list_processes, explain_gpu; act with plan_kill, then "
                 "execute_kill_plan with the plan_id it returns."
               : "gpukill sees what holds this host's GPUs (read-only: the server was "
                 "started without --allow-actions, so it cannot kill or reset).";
}

nlohmann::json Server::initialize(Session& session, const RpcRequest& request) {
    const nlohmann::json& params = request.params;
    if (!params.is_object() || !params.contains("protocolVersion") ||
        !params["protocolVersion"].is_string()) {
        return invalid_params(request.id, "protocolVersion: required, a string");
    }
    const std::string asked = params["protocolVersion"].get<std::string>();
    std::string chosen = kProtocolVersions.front();
    for (const char* version : kProtocolVersions) {
        if (asked == version) chosen = version;
    }
    std::string client = "unknown";
    if (const auto info = params.find("clientInfo"); info != params.end() && info->is_object()) {
        if (const auto name = info->find("name"); name != info->end() && name->is_string()) {
            client = name->get<std::string>();
        }
    }
    session.initialized = true;
    session.protocol_version = chosen;
    session.client_name = client;
    return result_response(request.id, nlohmann::json{
                                           {"protocolVersion", chosen},
                                           {"capabilities", capabilities(true)},
                                           {"serverInfo", server_info()},
                                           {"instructions", instructions()},
                                       });
}

nlohmann::json Server::call_tool(Session& session, const RpcRequest& request) {
    const nlohmann::json& params = request.params;
    if (!params.is_object() || !params.contains("name") || !params["name"].is_string()) {
        return invalid_params(request.id, "name: required, a string");
    }
    const std::string name = params["name"].get<std::string>();
    nlohmann::json arguments = nlohmann::json::object();
    if (const auto found = params.find("arguments"); found != params.end() && !found->is_null()) {
        if (!found->is_object()) return invalid_params(request.id, "arguments must be an object");
        arguments = *found;
    }
    const auto tool = std::find_if(tools_.begin(), tools_.end(), [&](const Tool& candidate) {
        return candidate.name == name && (!candidate.action || session.may_act);
    });
    if (tool == tools_.end()) {
        return invalid_params(request.id, "unknown tool: " + name +
                                              (options_.allow_actions
                                                   ? std::string()
                                                   : std::string(" (action tools need the server "
                                                                 "started with --allow-actions)")));
    }
    ToolResult result;
    if (auto unknown = unknown_argument(arguments, tool->input_schema)) {
        result = tool_error("unknown argument: " + *unknown);
    } else {
        const Actor actor = actor_of(session);
        std::lock_guard lock(mutex_);
        ToolContext context{.engine = engine_,
                            .actor = actor,
                            .plans = plans_,
                            .command = "mcp tools/call " + name + " " + to_line(arguments),
                            .interrupted = options_.interrupted};
        result = tool->run(context, arguments);
    }
    nlohmann::json text = result.text;
    if (result.structured && result.text.empty()) text = to_line(*result.structured);
    nlohmann::json content = nlohmann::json::array();
    content.push_back({{"type", "text"}, {"text", text}});
    if (result.structured) {
        // Clients that read only content get the document too.
        content.push_back({{"type", "text"}, {"text", to_line(*result.structured)}});
    }
    nlohmann::json answer{{"content", content}, {"isError", result.is_error}};
    if (result.structured) answer["structuredContent"] = *result.structured;
    return result_response(request.id, answer);
}

nlohmann::json Server::read_resource(const RpcRequest& request) {
    const nlohmann::json& params = request.params;
    if (!params.is_object() || !params.contains("uri") || !params["uri"].is_string()) {
        return invalid_params(request.id, "uri: required, a string");
    }
    const std::string uri = params["uri"].get<std::string>();
    std::string error;
    std::optional<nlohmann::json> contents;
    {
        std::lock_guard lock(mutex_);
        contents = resource_contents(engine_, uri, error);
    }
    if (!contents) {
        return error_response(request.id, rpc_code::resource_not_found, error,
                              nlohmann::json{{"uri", uri}});
    }
    return result_response(request.id,
                           nlohmann::json{{"contents", nlohmann::json::array({*contents})}});
}

nlohmann::json Server::get_prompt(const RpcRequest& request) {
    const nlohmann::json& params = request.params;
    if (!params.is_object() || !params.contains("name") || !params["name"].is_string()) {
        return invalid_params(request.id, "name: required, a string");
    }
    nlohmann::json arguments = nlohmann::json::object();
    if (const auto found = params.find("arguments"); found != params.end() && found->is_object()) {
        arguments = *found;
    }
    std::string error;
    auto prompt = prompt_messages(params["name"].get<std::string>(), arguments, error);
    if (!prompt) return invalid_params(request.id, error);
    return result_response(request.id, *prompt);
}

}  // namespace gpukill::mcp
