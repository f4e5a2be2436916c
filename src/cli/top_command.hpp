// `gpukill top`: the interactive monitor (src/top) on a terminal; on anything else
// (a pipe, a file) the same information as `gpukill list --details --watch`.
#pragma once

#include "cli/global_options.hpp"
#include "cli/list_command.hpp"
#include "engine/list_request.hpp"

namespace gpukill::cli {

struct TopCommandOptions {
    bool readonly = false;
};

// --interval is list's, shared with `gpukill list`; --gpu is list's request field.
int run_top_command(const GlobalOptions& global, const TopCommandOptions& options,
                    const ListOptions& list, const engine::ListRequest& request);

}  // namespace gpukill::cli
