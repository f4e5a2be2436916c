#include "engine/engine.hpp"

#include <utility>

#include "config/protected_list_file.hpp"
#include "host/run_program.hpp"

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

}  // namespace

std::optional<std::string> scontrol_program(const EngineConfig& config) {
    if (config.scontrol) return config.scontrol;
    if (auto named = config.environment("GPUKILL_SCONTROL")) return named;
    return find_in_path("scontrol", config.path_env.value_or("/usr/bin:/bin"), is_executable_file);
}

Engine::Engine(EngineConfig config)
    : config_(std::move(config)),
      action_log_(config_.state_dir, config_.audit_options),
      history_(config_.state_dir, config_.config_dir, config_.environment),
      images_(runtime_settings(config_)),
      pod_namespaces_(pod_log_dir(config_)),
      slurm_accounts_(scontrol_program(config_)) {}

void Engine::resolve_containers(Snapshot& snapshot) {
    const auto now = std::chrono::steady_clock::now();
    for (SnapshotProcess& process : snapshot.processes) {
        if (!process.info.container || process.gpus.empty()) continue;
        ContainerInfo& container = *process.info.container;
        if (images_.enabled()) container.image = images_.image_of(container, now);
        if (container.pod_uid) {
            container.pod_namespace = pod_namespaces_.namespace_of(*container.pod_uid, now);
        }
    }
}

Result<std::unique_ptr<Engine>> Engine::open(EngineConfig config) {
    if (!config.clock) config.clock = [] { return std::chrono::system_clock::now(); };
    if (!config.environment) {
        config.environment = [](const char*) -> std::optional<std::string> { return {}; };
    }
    std::unique_ptr<Engine> engine(new Engine(std::move(config)));
    if (!engine->config_.open_gpus) return engine;
    engine->backends_ = open_backends(backend_settings(engine->config_), std::nullopt);
    if (auto failure = requested_backend_failure(engine->backends_)) {
        return fail(ErrorCategory::unavailable, *failure);
    }
    return engine;
}

ListOutcome Engine::snapshot(bool record) {
    ListOutcome outcome{.snapshot = discover_host(), .history_warning = std::nullopt};
    if (record) outcome.history_warning = record_history(outcome.snapshot);
    return outcome;
}

std::optional<std::string> Engine::record_history(const Snapshot& snapshot) {
    return history_.record(snapshot);
}

std::optional<Engine::HolderTracking> Engine::holder_tracking() const {
    if (discovery_.holders) return HolderTracking{.tracking = true, .why_not = {}};
    if (discovery_.holders_untracked) {
        return HolderTracking{.tracking = false, .why_not = *discovery_.holders_untracked};
    }
    return std::nullopt;
}

Snapshot Engine::discover_host() {
    Snapshot snapshot = discover(config_.roots, backends_, &discovery_);
    resolve_containers(snapshot);
    snapshot.timestamp_unix_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(config_.clock().time_since_epoch())
            .count();
    return snapshot;
}

Snapshot Engine::discover_processes(const std::vector<pid_t>& pids) {
    Snapshot snapshot = gpukill::discover_processes(config_.roots, backends_, pids);
    resolve_containers(snapshot);
    snapshot.timestamp_unix_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(config_.clock().time_since_epoch())
            .count();
    return snapshot;
}

Result<reclaim::ProtectedList> Engine::protected_list() const {
    auto list = config::load_protected_list(config_.config_dir);
    if (!list && list.error().errno_value != 0) {
        return std::unexpected(as(ErrorCategory::unavailable, list.error()));
    }
    return list;
}

AuditTrail Engine::trail(const Actor& actor, std::string command,
                         std::optional<std::string> run_id) {
    audit::Invocation who = audit::invocation_for(actor, std::move(command));
    if (run_id) who.run_id = std::move(*run_id);
    return AuditTrail(action_log_, std::move(who), config_.clock);
}

void Engine::without_driver_sessions(const std::function<void()>& during) {
    // They nest, so every backend has let go while `during` runs.
    std::function<void()> step = during;
    for (const auto& backend : backends_) {
        step = [&backend, inner = std::move(step)] { backend->without_driver_session(inner); };
    }
    step();
}

std::vector<reclaim::ResetAttempt> Engine::reset_gpus(
    const reclaim::ResetPlan& plan, const std::optional<std::string>& nvidia_smi) {
    std::vector<reclaim::ResetAttempt> attempts;
    for (const std::vector<unsigned>& group : plan.groups) {
        Vendor vendor = Vendor::other;
        for (const reclaim::ResetGpu& gpu : plan.gpus) {
            if (!group.empty() && gpu.index == group.front()) vendor = gpu.vendor;
        }
        const auto run = [&] { attempts.push_back(reclaim::reset_group(plan, group, nvidia_smi)); };
        // Every backend serving the vendor lets go; they nest, so all are let go at once.
        std::function<void()> step = run;
        for (const auto& backend : backends_) {
            if (backend->vendor() != vendor) continue;
            step = [&backend, inner = std::move(step)] { backend->without_driver_session(inner); };
        }
        step();
    }
    return attempts;
}

}  // namespace gpukill::engine
