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
    // Processes whose container image matches (or is known and does not match) a pattern.
    std::optional<std::string> image;
    std::optional<std::string> not_image;
};

int run_list(const GlobalOptions& global, const ListOptions& options);

}  // namespace gpukill::cli
