// `gpukill audit` (compatible: `gpukill --audit ...`): usage history queries over the
// SQLite store, the action log written by the reclaim engine, and rogue detection.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/global_options.hpp"
#include "cli/request_options.hpp"

namespace gpukill::cli {

// audit's own options: which view, and the rogue configuration's commands. The window
// and filters are its requests' fields (usage, actions, the rogue scan).
struct AuditOptions {
    bool actions = false;  // --actions: the reclaim engine's action log
    bool json = false;     // --json / --output json

    // Rogue detection (cli/rogue_command.hpp).
    bool rogue = false;                              // --rogue
    bool rogue_config_print = false;                 // --rogue-config
    bool rogue_config_export = false;                // --rogue-export-config: YAML to stdout
    std::optional<std::string> rogue_config_import;  // --rogue-import-config FILE
    std::optional<std::string> rogue_config_file;    // --rogue-config-file FILE: use this one
};

int run_audit(const GlobalOptions& global, const AuditOptions& options,
              const RequestOptions& requests, const std::vector<std::string>& argv);

}  // namespace gpukill::cli
