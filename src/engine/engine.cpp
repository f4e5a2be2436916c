#include "engine/engine.hpp"

#include <fmt/format.h>

#include <functional>
#include <set>
#include <utility>

#include "backends/registry.hpp"
#include "config/protected_list_file.hpp"
#include "engine/engine_state.hpp"
#include "host/capabilities.hpp"
#include "host/run_program.hpp"
#include "reclaim/reset_exec.hpp"

namespace gpukill::engine {
namespace {

BackendConfig backend_settings(const EngineConfig& config) {
    return BackendConfig{.roots = config.roots, .nvml_library = config.nvml_library};
}

ContainerRuntimeOptions runtime_settings(const EngineConfig& config) {
    ContainerRuntimeOptions options;
    if (config.container_sockets) {
        options.sockets = *config.container_sockets;
        return options;
    }
    const std::optional<std::string> listed = config.environment("GPUKILL_CONTAINER_SOCKETS");
    const std::optional<std::string> runtime_dir = config.environment("XDG_RUNTIME_DIR");
    options.sockets = default_container_sockets(listed ? listed->c_str() : nullptr,
                                                runtime_dir ? runtime_dir->c_str() : nullptr);
    return options;
}

std::string pod_log_dir(const EngineConfig& config) {
    if (config.pod_log_dir) return *config.pod_log_dir;
    if (auto listed = config.environment("GPUKILL_POD_LOG_DIR")) return *listed;
    return kKubeletPodLogs;
}

std::int64_t clock_ms(std::chrono::system_clock::time_point when) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch()).count();
}

// What the runtime's bundle says, unless it names another pod than the cgroup does: the
// kernel's cgroup is the process's, and a bundle that disagrees (an id reused, a layout
// misread) is not trusted for any of it.
bool agrees_with_cgroup(const ContainerInfo& container, const CriBundleFacts& facts) {
    return !container.pod_uid || !facts.pod_uid || *container.pod_uid == *facts.pod_uid;
}

// Each container holder's image and pod: from the bundle containerd or CRI-O wrote for it
// (no daemon asked), else the image from a Docker or Podman API and the namespace from the
// kubelet's pod log directories. Each cached per container id or pod UID. A bundle that
// was refused leaves the image unknown and says why among the snapshot's warnings.
void resolve_containers(Engine::State& state, Snapshot& snapshot) {
    const auto now = std::chrono::steady_clock::now();
    std::set<std::string> refused;
    for (SnapshotProcess& process : snapshot.processes) {
        if (!process.info.container || process.gpus.empty()) continue;
        ContainerInfo& container = *process.info.container;
        CriBundles::Lookup bundle = state.bundles.look_up(container, now);
        if (bundle.refusal && refused.insert(*bundle.refusal).second) {
            snapshot.warnings.push_back("container image unknown: " + *bundle.refusal);
        }
        bool distrusted = bundle.refusal.has_value();
        if (bundle.facts && !agrees_with_cgroup(container, *bundle.facts)) {
            distrusted = true;
            if (refused.insert(container.id).second) {
                snapshot.warnings.push_back(fmt::format(
                    "container image unknown: the bundle of container {} names pod {}, its "
                    "cgroup pod {}: not trusted",
                    container.id.substr(0, 12), *bundle.facts->pod_uid, *container.pod_uid));
            }
            bundle.facts.reset();
        }
        if (bundle.facts) {
            container.image = bundle.facts->image;
            container.pod_name = bundle.facts->pod_name;
            container.pod_namespace = bundle.facts->pod_namespace;
            container.container_name = bundle.facts->container_name;
            if (!container.pod_uid) container.pod_uid = bundle.facts->pod_uid;
        }
        // A refused bundle is that runtime's container: no other source is asked for it.
        if (!container.image && !distrusted && state.images.enabled()) {
            container.image = state.images.image_of(container, now);
        }
        if (container.pod_uid && (!container.pod_namespace || !container.pod_name)) {
            if (auto pod = state.pod_namespaces.pod_of(*container.pod_uid, now)) {
                if (!container.pod_namespace) container.pod_namespace = pod->pod_namespace;
                if (!container.pod_name) container.pod_name = pod->name;
            }
        }
    }
}

}  // namespace

Actor local_actor(Interface interface) {
    return audit::local_actor(interface);
}

bool may_signal_any_user() {
    return can_signal_any_user("/proc/self/status");
}

std::optional<std::string> scontrol_program(const EngineConfig& config) {
    if (config.scontrol) return config.scontrol;
    if (auto named = config.environment("GPUKILL_SCONTROL")) return named;
    return find_in_path("scontrol", config.path_env.value_or("/usr/bin:/bin"), is_executable_file);
}

Engine::State::State(const EngineConfig& config)
    : action_log(config.state_dir,
                 audit::AuditLogOptions{.use_syslog = config.syslog, .syslog = config.syslog_sink}),
      history(config.state_dir, config.config_dir, config.environment),
      bundles(CriBundleOptions{.rundir = config.roots.rundir}),
      images(runtime_settings(config)),
      pod_namespaces(pod_log_dir(config)),
      slurm_accounts(scontrol_program(config)) {}

Engine::Engine(EngineConfig config)
    : config_(std::move(config)), state_(std::make_unique<State>(config_)) {}

Engine::~Engine() = default;

Result<std::unique_ptr<Engine>> Engine::open(EngineConfig config) {
    if (!config.clock) config.clock = [] { return std::chrono::system_clock::now(); };
    if (!config.environment) {
        config.environment = [](const char*) -> std::optional<std::string> { return {}; };
    }
    std::unique_ptr<Engine> engine(new Engine(std::move(config)));
    if (!engine->config_.open_gpus) return engine;
    engine->state_->backends = open_backends(backend_settings(engine->config_), std::nullopt);
    if (auto failure = requested_backend_failure(engine->state_->backends)) {
        return fail(ErrorCategory::unavailable, *failure);
    }
    return engine;
}

ListOutcome Engine::snapshot(bool record) {
    ListOutcome outcome{.snapshot = host_snapshot(*this), .history_warning = std::nullopt};
    if (record) outcome.history_warning = record_history(outcome.snapshot);
    return outcome;
}

std::optional<std::string> Engine::record_history(const Snapshot& snapshot) {
    return state_->history.record(snapshot);
}

Snapshot Engine::gpus() const {
    return discover_gpus(state_->backends);
}

std::optional<Engine::HolderTracking> Engine::holder_tracking() const {
    const DiscoveryState& discovery = state_->discovery;
    if (const HolderTracker* tracker = discovery.holders.get()) {
        return HolderTracking{.tracking = true,
                              .why_not = {},
                              .overflows = tracker->overflows(),
                              .repairs = tracker->repairs(),
                              .full_sweeps = tracker->full_sweeps(),
                              .receive_buffer_bytes = tracker->receive_buffer_bytes(),
                              .events_filtered = tracker->events_filtered()};
    }
    if (discovery.holders_untracked) {
        return HolderTracking{.tracking = false, .why_not = *discovery.holders_untracked};
    }
    return std::nullopt;
}

const std::vector<std::unique_ptr<Backend>>& backends_of(const Engine& engine) {
    return engine.state().backends;
}

Snapshot host_snapshot(Engine& engine, bool own_holds) {
    const EngineConfig& config = engine.config();
    Engine::State& state = engine.state();
    Snapshot snapshot = discover(config.roots, state.backends, &state.discovery, own_holds);
    resolve_containers(state, snapshot);
    snapshot.timestamp_unix_ms = clock_ms(config.clock());
    return snapshot;
}

Snapshot family_snapshot(Engine& engine, const std::vector<pid_t>& pids) {
    const EngineConfig& config = engine.config();
    Engine::State& state = engine.state();
    Snapshot snapshot = discover_processes(config.roots, state.backends, pids);
    resolve_containers(state, snapshot);
    snapshot.timestamp_unix_ms = clock_ms(config.clock());
    return snapshot;
}

Result<reclaim::ProtectedList> load_protected_list(const Engine& engine) {
    auto list = config::load_protected_list(engine.config().config_dir);
    if (!list && list.error().errno_value != 0) {
        return std::unexpected(as(ErrorCategory::unavailable, list.error()));
    }
    return list;
}

AuditTrail start_trail(Engine& engine, const Actor& actor, std::string command,
                       std::optional<std::string> run_id) {
    audit::Invocation who = audit::invocation_for(actor, std::move(command));
    if (run_id) who.run_id = std::move(*run_id);
    return AuditTrail(engine.state().action_log, std::move(who), engine.config().clock);
}

void Engine::without_driver_sessions(const std::function<void()>& during) {
    // They nest, so every backend has let go while `during` runs.
    std::function<void()> step = during;
    for (const auto& backend : state_->backends) {
        step = [&backend, inner = std::move(step)] { backend->without_driver_session(inner); };
    }
    step();
}

std::vector<reclaim::ResetAttempt> reset_gpus(Engine& engine, const reclaim::ResetPlan& plan,
                                              const std::optional<std::string>& nvidia_smi) {
    std::vector<reclaim::ResetAttempt> attempts;
    for (const std::vector<unsigned>& group : plan.groups) {
        Vendor vendor = Vendor::other;
        for (const reclaim::ResetGpu& gpu : plan.gpus) {
            if (!group.empty() && gpu.index == group.front()) vendor = gpu.vendor;
        }
        const auto run = [&] { attempts.push_back(reclaim::reset_group(plan, group, nvidia_smi)); };
        // Every backend serving the vendor lets go; they nest, so all are let go at once.
        std::function<void()> step = run;
        for (const auto& backend : engine.state().backends) {
            if (backend->vendor() != vendor) continue;
            step = [&backend, inner = std::move(step)] { backend->without_driver_session(inner); };
        }
        step();
    }
    return attempts;
}

SlurmAccounts& slurm_accounts_of(Engine& engine) {
    return engine.state().slurm_accounts;
}

}  // namespace gpukill::engine
