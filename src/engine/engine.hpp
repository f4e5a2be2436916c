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
#include <string_view>
#include <vector>

#include "engine/list_request.hpp"
#include "model/actor.hpp"
#include "model/host_roots.hpp"
#include "model/result.hpp"
#include "model/snapshot.hpp"

namespace gpukill::engine {

using SystemClock = std::function<std::chrono::system_clock::time_point()>;
using EnvironmentLookup = std::function<std::optional<std::string>(const char* name)>;
// Where the action log's copy of each record goes besides its file: (priority, line).
using SyslogSink = std::function<void(int priority, std::string_view line)>;

struct EngineConfig {
    HostRoots roots;
    std::optional<std::string> nvml_library;  // empty: the system's libnvidia-ml.so.1
    std::string state_dir;                    // the action log, the usage history
    std::string config_dir;                   // protected.yaml, history.yaml, guard.yaml
    // The nvidia-smi reset runs, when not found on `path_env`; and PATH itself.
    std::optional<std::string> nvidia_smi;
    std::optional<std::string> path_env;
    // Environment lookups for the usage history's settings (GPUKILL_NO_HISTORY, ...).
    EnvironmentLookup environment;
    SystemClock clock;  // empty: the system clock
    // Every audit record also goes to syslog (the system's, or `syslog_sink`).
    bool syslog = true;
    SyslogSink syslog_sink;
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
    // How long a plan the agent or the MCP server showed may be confirmed by its id, once,
    // by the actor it was shown to (engine/shown_plans.hpp says why). The MCP server sets
    // its --plan-validity here.
    std::chrono::seconds plan_confirmation_window{120};
};

// This process's user acting through `interface` (the command line, the guard loop, the
// monitor): the actor a local door names in its requests.
Actor local_actor(Interface interface);

// Whether this process may signal any user's process (effective uid 0, or CAP_KILL): what a
// door tells its user before offering to act on others' processes. The kernel still
// decides at each signal.
bool may_signal_any_user();

class Engine {
  public:
    // Opens every backend. A backend the configuration names explicitly (nvml_library)
    // that fails to load is an error (unavailable); others are a host without that vendor.
    static Result<std::unique_ptr<Engine>> open(EngineConfig config);
    ~Engine();

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
    // The GPUs alone, no process read (what a monitor resolves --gpu against).
    Snapshot gpus() const;

    // Whether snapshots keep device holders from kernel events
    // (host/holder_tracker.hpp: fanotify needs CAP_SYS_ADMIN, the process connector
    // CAP_NET_ADMIN) or sweep /proc each time. Empty before its second snapshot, when
    // the tracker is first tried; else the answer, with why not when it is not tracking.
    struct HolderTracking {
        bool tracking = false;
        std::string why_not;
        // While tracking: frames that lost kernel events (a busy node overflowing the
        // process connector, or fanotify's queue), how many of them a targeted rescan
        // repaired, full sweeps (the periodic safety net and the unrepairable losses),
        // the connector's receive buffer, and whether events are filtered in the kernel.
        std::size_t overflows = 0;
        std::size_t repairs = 0;
        std::size_t full_sweeps = 0;
        std::size_t receive_buffer_bytes = 0;
        bool events_filtered = false;
    };
    std::optional<HolderTracking> holder_tracking() const;

    // Runs `during` with every backend's driver session let go (NVML shut down, its device
    // files closed) and takes them up again afterwards: what a long-lived process (the
    // agent) does while another process resets a GPU (engine/local_channel.hpp).
    void without_driver_sessions(const std::function<void()>& during);

    // What the engine keeps for its own calls (backends, discovery, the action log, the
    // usage history, caches): engine/engine_state.hpp, private to src/engine.
    struct State;
    State& state() { return *state_; }
    const State& state() const { return *state_; }

  private:
    explicit Engine(EngineConfig config);

    EngineConfig config_;
    std::unique_ptr<State> state_;
};

}  // namespace gpukill::engine
