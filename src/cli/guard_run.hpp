// `gpukill guard run`: the enforcement loop in the foreground (what the agent runs).
// Every check_interval: sample the host (discover), record the sample in the usage
// history, evaluate the policy with the history and the saved warnings, save the
// warnings (STATE_DIR/guard-state.json), then
//   - enforce: warn (audit guard_warning, syslog, the user's terminals) and act on what
//     is due through the reclaim engine (audit guard_action and the reclaim records);
//   - dry-run: log what it would do (audit and syslog, marked dry-run), nothing else;
//   - off: nothing.
// A policy file that changes is read again; a bad new version is reported and the
// previous policy stays in force. SIGINT or SIGTERM ends the loop after the current
// cycle (exit 0). --once runs one cycle.
#pragma once

#include <string>
#include <vector>

#include "cli/global_options.hpp"
#include "cli/guard_cli.hpp"

namespace gpukill::cli {

int run_guard_loop(const GlobalOptions& global, const GuardOptions& options,
                   const std::vector<std::string>& argv);

}  // namespace gpukill::cli
