// The rogue-detection configuration flags: --rogue-config (print the configuration in
// effect and where it came from), --rogue-export-config (YAML that --rogue-import-config
// accepts) and --rogue-import-config FILE (check, then install atomically as
// CONFIG_DIR/rogue.yaml, audited).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/global_options.hpp"
#include "model/result.hpp"

namespace gpukill::cli {

// 3 for a file that is wrong (errno 0) or missing, 4 for one not permitted, else 1.
int rogue_config_error_exit_code(const Error& error);

// At a terminal, long flow sequences are wrapped between items (still valid YAML: a
// flow sequence may span lines); the export is never wrapped.
// `file`: --rogue-config-file, else CONFIG_DIR/rogue.yaml, else the defaults.
int print_rogue_config(const GlobalOptions& global, const std::optional<std::string>& file,
                       bool json, OutputWidth width = std::nullopt);
int export_rogue_config(const GlobalOptions& global, const std::optional<std::string>& file);
int import_rogue_config(const GlobalOptions& global, const std::string& file, bool json,
                        const std::vector<std::string>& argv);

}  // namespace gpukill::cli
