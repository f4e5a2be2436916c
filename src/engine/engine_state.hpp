// What an Engine keeps for its own calls, and the calls only src/engine makes on it:
// the opened backends, discovery's state across snapshots, the action log, the usage
// history, the container, pod and Slurm caches. Private to the engine: the interfaces
// see engine.hpp alone, and reach all of this through the engine's calls.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "discovery/discover.hpp"
#include "engine/audit_trail.hpp"
#include "engine/engine.hpp"
#include "engine/history_recorder.hpp"
#include "host/container_runtime.hpp"
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
    ContainerImageResolver images;
    PodNamespaces pod_namespaces;
    SlurmAccounts slurm_accounts;
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

// Job accounts asked of Slurm, kept per job id (for the guard's projects).
SlurmAccounts& slurm_accounts_of(Engine& engine);

}  // namespace gpukill::engine
