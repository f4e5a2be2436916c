// What the shell completions ask the tool for while a person types: `gpukill
// __complete gpus` (the GPU indices) and `gpukill __complete pids` (the PIDs of
// processes holding a GPU), one per line. Not a command: it records nothing, prints
// nothing else and, whatever goes wrong, prints nothing and exits 0 so a completion
// never shows an error. Host and state locations come from the GPUKILL_* variables.
#pragma once

#include <string>
#include <vector>

namespace gpukill::cli {

inline constexpr const char* kCompletionValuesCommand = "__complete";

// `args` without the program name: {"__complete", "gpus" | "pids"}.
int run_completion_values(const std::vector<std::string>& args);

}  // namespace gpukill::cli
