// `gpukill top`: the interactive monitor (src/top) on a terminal; on anything else
// (a pipe, a file) the same information as `gpukill list --details --watch`.
#pragma once

#include "cli/global_options.hpp"
#include "cli/list_command.hpp"

namespace gpukill::cli {

struct TopCommandOptions {
    bool readonly = false;
};

// `list` carries --interval and --gpu, shared with `gpukill list`.
int run_top_command(const GlobalOptions& global, const TopCommandOptions& options,
                    const ListOptions& list);

}  // namespace gpukill::cli
