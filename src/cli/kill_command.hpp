// `gpukill kill` (compatible: `gpukill --kill --pid P`, and `gpukill P`): select
// targets, show or carry out the plan, prove the memory came back, audit it all.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/global_options.hpp"
#include "engine/kill.hpp"
#include "model/result.hpp"

namespace gpukill::cli {

struct KillOptions {
    std::vector<std::string> pids;  // --pid and positional PIDs, as typed
    std::optional<std::string> gpu;
    std::optional<std::string> filter;
    std::optional<std::string> user;
    std::optional<std::string> container;
    std::optional<std::string> slurm_job;
    std::optional<std::string> image;      // --image REGEX
    std::optional<std::string> not_image;  // --not-image REGEX
    std::optional<std::string> min_memory;
    bool orphaned = false;
    bool unlisted = false;
    bool tree = false;
    bool group = false;
    bool batch = false;
    bool any_process = false;
    bool force = false;
    bool dry_run = false;
    bool json = false;
    std::string signal = "SIGTERM";
    double timeout_seconds = 5;
    double verify_timeout_seconds = 10;
    // --plan-id: act only if the plan built now has this identity (a fleet's second
    // phase; an interface confirming a preview).
    std::optional<std::string> plan_id;
    // --actor: who the audit records say asked: "cli" (default) or "fleet" (a fleet
    // controller, recorded with the SSH client's address).
    std::string actor = "cli";
};

// The engine's request for these options: the one translation the local command and the
// fleet's agent transport share, so a selector reaches every host it reaches here.
// invalid_input for a malformed --min-memory.
Result<engine::KillRequest> kill_request_of(const KillOptions& options);

// `argv` is recorded in the audit log.
int run_kill(const GlobalOptions& global, const KillOptions& options,
             const std::vector<std::string>& argv);

}  // namespace gpukill::cli
