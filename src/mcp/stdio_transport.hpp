// MCP over stdio, as desktop assistants launch a server: one JSON-RPC message per line
// on stdin, one per line on stdout. stdout carries MCP messages only (logs go to
// stderr); a line over the message limit is answered with an error and skipped, never
// buffered whole. Ends at end of input.
#pragma once

#include <cstdio>

#include "mcp/server.hpp"

namespace gpukill::mcp {

// Serves until `in` ends; returns 0, or 1 when `out` could not be written.
int serve_stdio(Server& server, std::FILE* in, std::FILE* out);

}  // namespace gpukill::mcp
