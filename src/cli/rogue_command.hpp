// `gpukill audit --rogue` and the rogue configuration flags (--rogue-config,
// --rogue-export-config, --rogue-import-config). Reports only; acting is the guard's job.
#pragma once

#include <string>
#include <vector>

#include "cli/audit_command.hpp"

namespace gpukill::cli {

namespace rogue_exit {
// The report succeeded and lists at least one finding (0: none). Distinct from 1
// (the check itself failed) so that scripts can tell "found something" from "broken".
inline constexpr int findings_present = 9;
}  // namespace rogue_exit

// True when any rogue flag was given (--rogue-config-file alone means --rogue with that
// file): run_audit hands such a request to run_rogue.
bool wants_rogue(const AuditOptions& options);

int run_rogue(const GlobalOptions& global, const AuditOptions& options,
              const RequestOptions& requests, const std::vector<std::string>& argv);

}  // namespace gpukill::cli
