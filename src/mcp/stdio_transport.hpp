// MCP over stdio, as desktop assistants launch a server: one JSON-RPC message per line
// on stdin, one per line on stdout. stdout carries MCP messages only (logs go to
// stderr); a line over the message limit is answered with an error and skipped, never
// buffered whole. Ends at end of input, or at SIGINT, SIGTERM or SIGHUP (an assistant
// stopping its server, a service manager, a closed terminal) while an InterruptCatcher
// (sys/interrupt.hpp) lives: the wait for input ends at once; a tool call in progress
// ends its waits through ServerOptions::interrupted, records what it did, and is
// answered before the server returns.
#pragma once

#include <cstdio>

#include "mcp/server.hpp"

namespace gpukill::mcp {

// Serves until input on `in_fd` ends or a stop signal was caught; returns 0, or 1 when
// `out` could not be written or `in_fd` could not be read. `in_fd` is read with read(2)
// (no stdio buffer), so that waiting for it can also wait for the signals.
int serve_stdio(Server& server, int in_fd, std::FILE* out);

}  // namespace gpukill::mcp
