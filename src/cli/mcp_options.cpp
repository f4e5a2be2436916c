// The option table of `gpukill mcp` (mcp_command.hpp), registered by the command line in
// both gpukill and gpukill-interfaces; the command itself runs in the latter.
#include <CLI/CLI.hpp>

#include "cli/mcp_command.hpp"

namespace gpukill::cli {

void add_mcp_options(CLI::App& command, McpOptions& options) {
    command.add_flag("--http", options.http, "serve Streamable HTTP on --listen instead of stdio");
    command
        .add_option("--listen", options.listen,
                    "address and port for --http (default 127.0.0.1:9440; port 0 picks a free "
                    "one, said on stderr)")
        ->type_name("ADDR:PORT");
    command.add_flag("--allow-actions", options.allow_actions,
                     "offer the kill and reset tools (over --http, also needs --token-file)");
    command
        .add_option("--token-file", options.token_file,
                    "bearer tokens for --http, lines NAME SCOPES SECRET, readable by its owner "
                    "only")
        ->type_name("FILE");
    command
        .add_option("--allowed-host", options.allowed_hosts,
                    "a Host and Origin name accepted besides loopback (repeatable)")
        ->type_name("NAME");
    command
        .add_option("--plan-validity", options.plan_validity_seconds,
                    "seconds a kill plan stays executable (default 120)")
        ->type_name("SECONDS");
    command
        .add_option("--max-sessions", options.max_sessions,
                    "HTTP sessions kept at once (default 64; the longest idle goes first)")
        ->type_name("N");
}

}  // namespace gpukill::cli
