#pragma once
// --name: makes the process show as NAME, in its command line (argv[0], which needs a
// re-execution of gpusim itself) and in comm (PR_SET_NAME, first 15 characters). Forked
// workers inherit both.

#include <string>

#include "state/error.hpp"

namespace gpusim {

// Re-executes /proc/self/exe with argv[0] = name when argv[0] differs (never returns then),
// else sets comm. `argv` is the process's own.
Result<void> take_name(const std::string& name, char** argv);

}  // namespace gpusim
