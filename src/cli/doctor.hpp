// `gpukill doctor`: the engine's findings about this host (engine/doctor.hpp), as a
// table or as JSON.
#pragma once

#include "cli/global_options.hpp"

namespace gpukill::cli {

int run_doctor(const GlobalOptions& global, bool json);

}  // namespace gpukill::cli
