// `gpukill list` (and the compatible `gpukill --list`).
#pragma once

#include <optional>
#include <string>

#include "cli/global_options.hpp"
#include "engine/list_request.hpp"

namespace gpukill::cli {

// list's own options (how it is shown); what is listed is its request.
struct ListOptions {
    bool json = false;
    bool details = false;
    bool watch = false;
    double interval_seconds = 2.0;
    // A one-shot list sweeps /proc itself even where the host's agent would answer.
    bool no_agent = false;
};

int run_list(const GlobalOptions& global, const ListOptions& options, engine::ListRequest request);

}  // namespace gpukill::cli
