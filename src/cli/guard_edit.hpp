// The compatible policy-editing flags: --guard-enable, --guard-disable, --guard-dry-run,
// --guard-enforce, --guard-config, --guard-export-config, --guard-import-config FILE,
// --guard-add-user/--guard-remove-user U, --guard-add-group/--guard-remove-group G,
// --guard-add-gpu/--guard-remove-gpu N with --guard-memory-limit, --guard-max-processes,
// --guard-group-members, --guard-allowed-users, --guard-allowed-executables,
// --guard-exclusive, --guard-reserved-memory, --guard-action, --guard-grace-period.
// The policy file (--policy, else CONFIG_DIR/guard.yaml) is edited in place: only the
// lines that change are rewritten (comments stay), the result must load cleanly, and it
// replaces the file atomically (write, fsync, rename). Every change is audited
// (guard_policy_changed).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/global_options.hpp"
#include "engine/policy_edit.hpp"

// CLI11 stays out of headers: its header is the slowest part of every file including it.
namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace gpukill::cli {

// The flags fill the engine's request (engine/policy_edit.hpp) directly.
using GuardEditOptions = engine::PolicyEditRequest;

// Registers the flags on `app`; each is also added to `given` (guard_requested).
void add_guard_edit_flags(CLI::App& app, GuardEditOptions& options,
                          std::vector<CLI::Option*>& given);

// Whether any editing flag was given (then run_guard_edit handles the request).
bool wants_guard_edit(const std::vector<CLI::Option*>& edit_options);

int run_guard_edit(const GlobalOptions& global, const GuardEditOptions& options,
                   const std::optional<std::string>& policy_flag,
                   const std::vector<std::string>& argv);

}  // namespace gpukill::cli
