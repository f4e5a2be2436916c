// `gpukill mcp`: the MCP server for AI assistants (src/mcp), over stdio (what desktop
// assistants launch) or, with --http, Streamable HTTP on --listen. Read-only unless
// --allow-actions; over HTTP actions also need --token-file. docs/MCP.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/global_options.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace gpukill::cli {

struct McpOptions {
    bool http = false;
    std::string listen = "127.0.0.1:9440";  // ADDR:PORT; port 0 picks a free one
    bool allow_actions = false;
    std::optional<std::string> token_file;
    std::vector<std::string> allowed_hosts;
    double plan_validity_seconds = 120;
    unsigned max_sessions = 64;
};

void add_mcp_options(CLI::App& command, McpOptions& options);
int run_mcp(const GlobalOptions& global, const McpOptions& options);

}  // namespace gpukill::cli
