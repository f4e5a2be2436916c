// The engine: the one library every interface (the command line, the agent, fleet
// control, the MCP server, the monitor) calls to read a host and act on it. Value types
// in and out; no printing, no process exit codes, no command-line types. Whatever calls
// it, the same planning, safety checks, identity binding, signal-and-verify path and
// audit records apply: the engine writes every record itself, naming the Actor.
//
// One Engine per process is meant to live as long as the process (weeks, for the agent):
// it opens the GPU backends once and keeps them, reads the system clock only through
// the clock it was given, and holds no cache without a bound.
//
// Not thread-safe: an interface serving several clients serialises its calls.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "audit/audit_log.hpp"
#include "backends/backend.hpp"
#include "backends/registry.hpp"
#include "discovery/discover.hpp"
#include "engine/audit_trail.hpp"
#include "engine/history_recorder.hpp"
#include "engine/list_request.hpp"
#include "host/container_runtime.hpp"
#include "host/pod_namespaces.hpp"
#include "host/roots.hpp"
#include "host/slurm_accounts.hpp"
#include "model/actor.hpp"
#include "model/result.hpp"
#include "model/snapshot.hpp"
#include "reclaim/reset_exec.hpp"
#include "reclaim/reset_plan.hpp"
#include "reclaim/select.hpp"

namespace gpukill::engine {

struct EngineConfig {
    HostRoots roots;
    std::optional<std::string> nvml_library;  // empty: the system's libnvidia-ml.so.1
    std::string state_dir;                    // the action log, the usage history
    std::string config_dir;                   // protected.yaml, history.yaml, guard.yaml
    // The nvidia-smi reset runs, when not found on `path_env`; and PATH itself.
    std::optional<std::string> nvidia_smi;
    std::optional<std::string> path_env;
    // Environment lookups for the usage history's settings (GPUKILL_NO_HISTORY, ...).
    history::EnvironmentLookup environment;
    SystemClock clock;                     // empty: the system clock
    audit::AuditLogOptions audit_options;  // syslog on by default
    // false: no GPU backends (a caller that only changes configuration and records it
    // need not initialise NVML); list and kill then see no GPUs.
    bool open_gpus = true;
    // The container runtimes' API sockets that name a container's image
    // (host/container_runtime.hpp). Empty: GPUKILL_CONTAINER_SOCKETS from `environment`,
    // else the Docker and Podman defaults; an empty list turns resolution off.
    std::optional<std::vector<std::string>> container_sockets;
    // The kubelet's pod log directories, which name each pod's namespace
    // (host/pod_namespaces.hpp). Empty: GPUKILL_POD_LOG_DIR from `environment`, else
    // /var/log/pods.
    std::optional<std::string> pod_log_dir;
    // Slurm's scontrol, which names a job's account (host/slurm_accounts.hpp). Empty:
    // GPUKILL_SCONTROL from `environment`, else scontrol on `path_env`.
    std::optional<std::string> scontrol;
};

// The scontrol that names Slurm jobs' accounts: EngineConfig::scontrol, else
// GPUKILL_SCONTROL, else scontrol on PATH; empty when there is none.
std::optional<std::string> scontrol_program(const EngineConfig& config);

class Engine {
  public:
    // Opens every backend. A backend the configuration names explicitly (nvml_library)
    // that fails to load is an error (unavailable); others are a host without that vendor.
    static Result<std::unique_ptr<Engine>> open(EngineConfig config);

    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    const EngineConfig& config() const { return config_; }
    std::chrono::system_clock::time_point now() const { return config_.clock(); }

    // The whole host, recorded in the usage history when `record_history` (what `list`
    // and `watch` do). A door asking for a narrowed listing calls engine::list
    // (engine/list.hpp).
    ListOutcome snapshot(bool record_history = false);
    // The snapshot into the usage history; the history's problem, the first time.
    std::optional<std::string> record_history(const Snapshot& snapshot);

    // CONFIG_DIR/protected.yaml over the built-in list, read again at each call (an
    // edit takes effect at the next action). Errors: invalid_input (malformed),
    // unavailable (it exists but cannot be read).
    Result<reclaim::ProtectedList> protected_list() const;

    // Whether discover_host keeps device holders from kernel events
    // (host/holder_tracker.hpp: fanotify needs CAP_SYS_ADMIN, the process connector
    // CAP_NET_ADMIN) or sweeps /proc each time. Empty before its second call, when the
    // tracker is first tried; else the answer, with why not when it is not tracking.
    struct HolderTracking {
        bool tracking = false;
        std::string why_not;
    };
    std::optional<HolderTracking> holder_tracking() const;

    // For the calls in src/engine (kill, reset, guard): not for interfaces.
    const std::vector<std::unique_ptr<Backend>>& backends() const { return backends_; }
    // Stamped with the engine's clock, as everything the engine records.
    Snapshot discover_host();
    // The GPUs, and device-file holders among `pids` only (discover_processes).
    Snapshot discover_processes(const std::vector<pid_t>& pids);
    Snapshot discover_gpu_memory() const { return discover_gpus(backends_); }
    // Job accounts asked of Slurm, kept per job id (for the guard's projects).
    SlurmAccounts& slurm_accounts() { return slurm_accounts_; }
    // The trail of one request; `command` is what was asked, in the interface's words.
    // `run_id` continues an earlier request's run (a preview and its execution).
    AuditTrail trail(const Actor& actor, std::string command,
                     std::optional<std::string> run_id = std::nullopt);
    // Each group of plan.groups reset by reclaim::reset_group, inside the serving
    // backend's without_driver_session (NVML lets go of the device files for it).
    std::vector<reclaim::ResetAttempt> reset_gpus(const reclaim::ResetPlan& plan,
                                                  const std::optional<std::string>& nvidia_smi);
    // Runs `during` with every backend's driver session let go (NVML shut down, its device
    // files closed) and takes them up again afterwards: what a long-lived process (the
    // agent) does while another process resets a GPU (engine/local_channel.hpp).
    void without_driver_sessions(const std::function<void()>& during);

  private:
    explicit Engine(EngineConfig config);
    // Each container holder's image from its runtime, cached per container id, and its
    // pod's namespace.
    void resolve_containers(Snapshot& snapshot);

    EngineConfig config_;
    std::vector<std::unique_ptr<Backend>> backends_;
    DiscoveryState discovery_;
    ActionLog action_log_;
    HistoryRecorder history_;
    ContainerImageResolver images_;
    PodNamespaces pod_namespaces_;
    SlurmAccounts slurm_accounts_;
};

}  // namespace gpukill::engine
