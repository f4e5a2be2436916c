// `gpukill list` (and the compatible `gpukill --list`).
#pragma once

#include <optional>
#include <string>

#include "cli/global_options.hpp"

namespace gpukill::cli {

struct ListOptions {
    bool json = false;
    bool details = false;
    std::optional<std::string> gpu;  // index, UUID or bus id
    std::string vendor = "all";
    bool watch = false;
    double interval_seconds = 2.0;
};

int run_list(const GlobalOptions& global, const ListOptions& options);

}  // namespace gpukill::cli
