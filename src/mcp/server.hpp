// The MCP protocol layer: one Server over one Engine, any number of sessions (one for
// stdio; one per Mcp-Session-Id over HTTP). It answers initialize (version negotiation,
// capabilities), ping, tools/list and tools/call, resources/list and resources/read,
// prompts/list and prompts/get, logging/setLevel, and accepts the notifications clients
// send. A request whose _meta names a protocol version is served by the stateless
// revision 2026-07-28 instead (server/discover, no session; mcp/stateless_revision.hpp).
// Transports hand it one message at a time and send back what it returns.
//
// Every tool call goes through the engine with the actor {mcp, "mcp:<client name>",
// remote address}: the same plans, refusals and audit records as the command line.
// Action tools (plan_kill, execute_kill_plan, reset_gpu) exist only when the server was
// started with allow_actions; without it they are absent from tools/list and a call
// to one is an unknown tool.
//
// Thread-safe: calls into the engine are serialised by one mutex.
#pragma once

#include <array>
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/plan_store.hpp"
#include "mcp/stateless_revision.hpp"
#include "mcp/tools.hpp"
#include "model/actor.hpp"

namespace gpukill::mcp {

// Newest first: what initialize answers with when the client asks for another one.
inline constexpr std::array<const char*, 3> kProtocolVersions = {"2025-11-25", "2025-06-18",
                                                                 "2025-03-26"};

struct ServerOptions {
    bool allow_actions = false;
    std::chrono::seconds plan_validity{120};
    std::string server_version = "0";
    // Asked while an action waits (a kill waiting for its targets): true when the server
    // is being stopped (SIGTERM over stdio), which ends the wait as Ctrl-C ends a
    // command line's; what was sent is recorded and answered. Optional.
    std::function<bool()> interrupted;
};

struct Session {
    bool initialized = false;  // initialize answered
    std::string protocol_version;
    std::string client_name;            // clientInfo.name, sanitised and bounded
    std::optional<std::string> remote;  // HTTP: the peer's address
    std::string log_level = "info";
    // HTTP: the bearer token allows acting (act scope). Action tools are listed and run
    // only when the server allows actions and this is true.
    bool may_act = true;
};

// "mcp:<name>": printable ASCII letters, digits and ".-_ " kept, at most 64 characters;
// "mcp:unknown" for an empty name.
std::string actor_name_for(std::string_view client_name);

class Server {
  public:
    Server(engine::Engine& engine, ServerOptions options);

    // The response to send for one message, or nothing (notifications, responses).
    std::optional<nlohmann::json> handle(Session& session, const RpcMessage& message);
    std::optional<nlohmann::json> handle_text(Session& session, std::string_view text);

    const ServerOptions& options() const { return options_; }
    // The tools this server lists (action tools only with allow_actions).
    const std::vector<Tool>& tools() const { return tools_; }

  private:
    nlohmann::json dispatch(Session& session, const RpcRequest& request);
    nlohmann::json initialize(Session& session, const RpcRequest& request);
    // A request of the stateless revision (mcp/stateless_revision.hpp).
    nlohmann::json handle_stateless(const Session& transport, const RpcRequest& request,
                                    const Envelope& envelope);
    static nlohmann::json supported_versions();
    static nlohmann::json capabilities(bool with_logging);
    nlohmann::json server_info() const;
    std::string instructions() const;
    nlohmann::json call_tool(Session& session, const RpcRequest& request);
    nlohmann::json read_resource(const RpcRequest& request);
    nlohmann::json get_prompt(const RpcRequest& request);
    Actor actor_of(const Session& session) const;

    engine::Engine& engine_;
    ServerOptions options_;
    std::mutex mutex_;
    PlanStore plans_;
    std::vector<Tool> tools_;
};

}  // namespace gpukill::mcp
