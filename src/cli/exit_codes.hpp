// Exit codes are a contract for scripts (Slurm epilogs, CI checks); README lists them.
#pragma once

namespace gpukill::exit_code {

inline constexpr int ok = 0;
inline constexpr int failure = 1;  // an operation failed; the message says which
inline constexpr int invalid_arguments = 3;
inline constexpr int permission_denied = 4;
inline constexpr int unsupported = 5;
inline constexpr int interrupted = 130;  // SIGINT during a non-watch operation

}  // namespace gpukill::exit_code
