// `gpukill audit` (compatible: `gpukill --audit ...`): usage history queries over the
// SQLite store, the action log written by the reclaim engine, and rogue detection.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/global_options.hpp"

namespace gpukill::cli {

struct AuditOptions {
    double hours = 24;                   // --audit-hours N: the window, ending now
    std::optional<std::string> user;     // --audit-user U: exact name or uid
    std::optional<std::string> process;  // --audit-process PATTERN: regex on name/command
    bool summary = false;                // --audit-summary
    bool actions = false;                // --actions: the reclaim engine's action log
    bool json = false;                   // --json / --output json

    // Rogue detection (cli/rogue_command.hpp).
    bool rogue = false;                              // --rogue
    bool rogue_config_print = false;                 // --rogue-config
    bool rogue_config_export = false;                // --rogue-export-config: YAML to stdout
    std::optional<std::string> rogue_config_import;  // --rogue-import-config FILE
    std::optional<std::string> rogue_config_file;    // --rogue-config-file FILE: use this one
};

int run_audit(const GlobalOptions& global, const AuditOptions& options,
              const std::vector<std::string>& argv);

}  // namespace gpukill::cli
