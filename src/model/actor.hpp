// Who asked for an action, and through which interface: recorded on every audit record
// so that a kill made by the agent for a remote token, by an AI assistant over MCP, by
// the guard loop or by a person at the command line can each be told apart afterwards.
#pragma once

#include <optional>
#include <string>

namespace gpukill {

enum class Interface {
    cli,      // a person or script running gpukill
    guard,    // the policy loop (guard run), acting on its own
    agent,    // the per-host HTTP agent, on behalf of a token holder
    mcp,      // the MCP server, on behalf of an AI assistant
    fleet,    // fleet control from another host
    library,  // a program linking the engine directly
    top,      // the interactive monitor (gpukill top), for the person at the terminal
};
const char* to_string(Interface interface);

struct Actor {
    Interface interface = Interface::cli;
    // cli/guard: the account name; agent: the token's name; mcp: the client's name.
    std::string name;
    // agent/fleet: the peer's address ("127.0.0.1:53422"); empty for local interfaces.
    std::optional<std::string> remote;
};

}  // namespace gpukill
