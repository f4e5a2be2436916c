// What an Engine keeps for its own calls, and the calls only src/engine makes on it:
// the opened backends, discovery's state across snapshots, the action log, the usage
// history, the container (bundles, runtime APIs), pod and Slurm caches. Private to the engine: the
// interfaces see engine.hpp alone, and reach all of this through the engine's calls.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.hpp"
#include "discovery/discover.hpp"
#include "engine/audit_trail.hpp"
#include "engine/engine.hpp"
#include "engine/history_recorder.hpp"
#include "engine/shown_plans.hpp"
#include "host/container_runtime.hpp"
#include "host/cri_bundle.hpp"
#include "host/pod_namespaces.hpp"
#include "host/slurm_accounts.hpp"
#include "model/actor.hpp"
#include "model/reset_plan.hpp"
#include "model/reset_results.hpp"
#include "reclaim/select.hpp"

namespace gpukill::engine {

struct Engine::State {
    explicit State(const EngineConfig& config);

    std::vector<std::unique_ptr<Backend>> backends;
    DiscoveryState discovery;
    ActionLog action_log;
    HistoryRecorder history;
    CriBundles bundles;
    ContainerImageResolver images;
    PodNamespaces pod_namespaces;
    SlurmAccounts slurm_accounts;
    ShownPlans shown_plans;
};

// The scontrol that names Slurm jobs' accounts: EngineConfig::scontrol, else
// GPUKILL_SCONTROL, else scontrol on PATH; empty when there is none.
std::optional<std::string> scontrol_program(const EngineConfig& config);

const std::vector<std::unique_ptr<Backend>>& backends_of(const Engine& engine);

// The whole host, stamped with the engine's clock as everything it records; images and
// pods resolved. Not recorded in the usage history. With `own_holds`, this process's own
// device files too (discover's).
Snapshot host_snapshot(Engine& engine, bool own_holds = false);
// The GPUs, and device-file holders among `pids` only (discover_processes).
Snapshot family_snapshot(Engine& engine, const std::vector<pid_t>& pids);

// CONFIG_DIR/protected.yaml over the built-in list, read again at each call (an edit
// takes effect at the next action). Errors: invalid_input (malformed), unavailable (it
// exists but cannot be read).
Result<reclaim::ProtectedList> load_protected_list(const Engine& engine);

// The trail of one request; `command` is what was asked, in the interface's words.
// `run_id` continues an earlier request's run (a preview and its execution).
AuditTrail start_trail(Engine& engine, const Actor& actor, std::string command,
                       std::optional<std::string> run_id = std::nullopt);

// Each group of plan.groups reset by reclaim::reset_group, inside the serving backend's
// without_driver_session (NVML lets go of the device files for it).
std::vector<reclaim::ResetAttempt> reset_gpus(Engine& engine, const reclaim::ResetPlan& plan,
                                              const std::optional<std::string>& nvidia_smi);

// A confirmation by plan id (`expected`, none: nothing to confirm) of the plan built now
// (`built`): the ids must be the same, and through the agent or MCP the plan must have
// been shown to `actor` within the confirmation window, once (shown_plans.hpp). Else a
// conflict, nothing done. note_shown records a plan shown to `actor` (agent, MCP only).
Result<void> confirm_shown(Engine& engine, std::string_view kind,
                           const std::optional<std::string>& expected, const std::string& built,
                           const Actor& actor);
void note_shown(Engine& engine, std::string_view kind, const std::string& plan_id,
                const Actor& actor);

// Job accounts asked of Slurm, kept per job id (for the guard's projects).
SlurmAccounts& slurm_accounts_of(Engine& engine);

}  // namespace gpukill::engine
