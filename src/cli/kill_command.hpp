// `gpukill kill` (compatible: `gpukill --kill --pid P`, and `gpukill P`): select
// targets, show or carry out the plan, prove the memory came back, audit it all.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/global_options.hpp"
#include "engine/kill.hpp"

namespace gpukill::cli {

// kill's own options; the rest of kill is its request (engine/request_tables.cpp).
struct KillOptions {
    bool json = false;
    // --actor: who the audit records say asked: "cli" (default) or "fleet" (a fleet
    // controller, recorded with the SSH client's address).
    std::string actor = "cli";
};

// `argv` is recorded in the audit log.
int run_kill(const GlobalOptions& global, const KillOptions& options, engine::KillRequest request,
             const std::vector<std::string>& argv);

}  // namespace gpukill::cli
