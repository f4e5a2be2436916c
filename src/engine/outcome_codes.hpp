// The documented outcome codes, a contract for scripts (Slurm epilogs, CI checks); README
// lists them. The command line exits with them; the engine's outcomes carry them (the
// `exit_code` of the kill and reset JSON), so the agent and the MCP server report the
// same classification as the command line would.
#pragma once

namespace gpukill::exit_code {

inline constexpr int ok = 0;
inline constexpr int failure = 1;  // an operation failed; the message says which
inline constexpr int invalid_arguments = 3;
inline constexpr int permission_denied = 4;
inline constexpr int unsupported = 5;
inline constexpr int interrupted = 130;  // SIGINT during a non-watch operation

}  // namespace gpukill::exit_code
