#include "engine/doctor.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "backends/registry.hpp"
#include "discovery/discover.hpp"
#include "host/cri_bundle.hpp"
#include "host/holder_tracker.hpp"
#include "host/process_access.hpp"
#include "model/human_format.hpp"

namespace gpukill::engine {
namespace {

std::size_t count_entries(const std::string& dir, const std::regex& pattern) {
    std::size_t count = 0;
    DIR* handle = opendir(dir.c_str());
    if (handle == nullptr) return 0;
    while (dirent* entry = readdir(handle)) {
        if (std::regex_match(entry->d_name, pattern)) ++count;
    }
    closedir(handle);
    return count;
}

// Writable now, or creatable by us under its nearest existing parent.
bool writable_or_creatable(std::string path) {
    while (!path.empty()) {
        if (access(path.c_str(), F_OK) == 0) return access(path.c_str(), W_OK | X_OK) == 0;
        auto slash = path.find_last_of('/');
        if (slash == std::string::npos) return access(".", W_OK) == 0;
        path = slash == 0 ? "/" : path.substr(0, slash);
    }
    return false;
}

}  // namespace

const char* to_string(CheckLevel level) {
    switch (level) {
        case CheckLevel::ok:
            return "ok";
        case CheckLevel::info:
            return "info";
        case CheckLevel::warn:
            return "warn";
        case CheckLevel::fail:
            return "fail";
    }
    return "info";
}

std::vector<DoctorCheck> diagnose(const DoctorFacts& facts) {
    std::vector<DoctorCheck> checks;
    for (const BackendStatus& backend : facts.backends) {
        DoctorCheck check{.name = "backend " + backend.name, .detail = backend.detail};
        if (backend.loaded) {
            check.level = CheckLevel::ok;
            if (backend.driver_version) check.detail += ", driver " + *backend.driver_version;
        } else {
            // Device nodes without a working driver library is a real gap; no
            // nodes and no library is simply a host without that vendor's GPUs.
            bool nodes_present = backend.name == "nvml" && facts.nvidia_device_nodes > 0;
            check.level =
                backend.explicitly_requested || nodes_present ? CheckLevel::fail : CheckLevel::info;
            check.advice = backend.advice;
        }
        checks.push_back(std::move(check));
    }
    checks.push_back(DoctorCheck{
        .name = "gpus",
        .level = facts.gpus_found > 0 ? CheckLevel::ok : CheckLevel::info,
        .detail = fmt::format("{} GPU{} found", facts.gpus_found, facts.gpus_found == 1 ? "" : "s"),
        .advice = facts.gpus_found > 0
                      ? std::nullopt
                      : std::optional<std::string>(
                            "gpukill still lists processes holding GPU device files"),
    });
    checks.push_back(DoctorCheck{
        .name = "device nodes",
        .level = CheckLevel::info,
        .detail = fmt::format("{}: {} NVIDIA GPU node{}, {} DRM node{}{}", facts.roots.devfs,
                              facts.nvidia_device_nodes, facts.nvidia_device_nodes == 1 ? "" : "s",
                              facts.dri_device_nodes, facts.dri_device_nodes == 1 ? "" : "s",
                              facts.kfd_present ? ", /dev/kfd" : ""),
    });
    if (!facts.procfs_readable) {
        checks.push_back(DoctorCheck{
            .name = "process visibility",
            .level = CheckLevel::fail,
            .detail = fmt::format("cannot read {}", facts.roots.procfs),
            .advice = "point --procfs (GPUKILL_PROCFS) at the host's /proc",
        });
    } else if (facts.processes_denied > 0) {
        ProcessAccessFacts asking = facts.access;
        asking.euid = facts.euid;
        checks.push_back(DoctorCheck{
            .name = "process visibility",
            .level = CheckLevel::warn,
            .detail = fmt::format("open files of {} of {} processes are unreadable (running as "
                                  "uid {})",
                                  facts.processes_denied, facts.processes_scanned, facts.euid),
            .advice = unreadable_processes_advice(asking) +
                      (facts.euid != 0 ? "; without it orphaned workers of other users stay "
                                         "invisible"
                                       : ""),
        });
    } else {
        checks.push_back(DoctorCheck{
            .name = "process visibility",
            .level = CheckLevel::ok,
            .detail = fmt::format("all {} processes' open files readable", facts.processes_scanned),
        });
    }
    if (auto hidden = pid_namespace_advice(facts.access)) {
        checks.push_back(DoctorCheck{
            .name = "PID namespace",
            .level = CheckLevel::warn,
            .detail = "only this container's processes are visible",
            .advice = *hidden,
        });
    }
    checks.push_back(DoctorCheck{
        .name = "holder tracking",
        .level = facts.holder_tracking_unavailable.empty() ? CheckLevel::ok : CheckLevel::info,
        .detail = facts.holder_tracking_unavailable.empty()
                      ? fmt::format("kernel events available: the agent and `list --watch` track "
                                    "holders (process events {}, {} receive buffer)",
                                    facts.holder_events_filtered ? "filtered in the kernel"
                                                                 : "all read, unfiltered",
                                    format_bytes(std::uint64_t{facts.holder_events_buffer_bytes}))
                      : "every sample sweeps /proc: " + facts.holder_tracking_unavailable,
        .advice = facts.holder_tracking_unavailable.empty()
                      ? std::nullopt
                      : std::optional<std::string>(
                            "run as root with CAP_SYS_ADMIN and CAP_NET_ADMIN (deploy/ grants "
                            "both); nothing is missed without them, each sample costs more"),
    });
    for (const DoctorFacts::CriRuntimeFacts& runtime : facts.cri_runtimes) {
        if (runtime.bundles) {
            checks.push_back(DoctorCheck{
                .name = "container images (" + runtime.name + ")",
                .level = CheckLevel::ok,
                .detail = "images and pods read from the bundles in " + runtime.bundle_dir,
            });
        } else if (runtime.socket) {
            // The runtime is here, but its answer is over gRPC only: images stay unknown.
            checks.push_back(DoctorCheck{
                .name = "container images (" + runtime.name + ")",
                .level = CheckLevel::warn,
                .detail = fmt::format(
                    "{} answers at {} over the CRI (gRPC), which gpukill does not speak, and "
                    "its bundles are not visible at {}: container images and pods are "
                    "unknown, so --image, --not-image, --namespace and --pod select nothing",
                    runtime.name, runtime.socket_path, runtime.bundle_dir),
                .advice = "give gpukill the host's run directory (--rundir, GPUKILL_RUNDIR), "
                          "or mount that directory read-only where --rundir points, as "
                          "deploy/kubernetes does",
            });
        }
    }
    checks.push_back(DoctorCheck{
        .name = "state directory",
        .level = facts.state_dir_writable ? CheckLevel::ok : CheckLevel::warn,
        .detail = fmt::format("{} ({})", facts.state_dir,
                              facts.state_dir_writable ? "writable" : "not writable"),
        .advice = facts.state_dir_writable
                      ? std::nullopt
                      : std::optional<std::string>(
                            "set --state-dir or GPUKILL_STATE_DIR to a writable directory; the "
                            "audit log and usage history live there"),
    });
    return checks;
}

DoctorFacts gather_doctor_facts(const EngineConfig& config) {
    DoctorFacts facts;
    facts.roots = config.roots;
    facts.euid = geteuid();
    auto backends = open_backends(
        BackendConfig{.roots = config.roots, .nvml_library = config.nvml_library}, std::nullopt);
    Snapshot snapshot = discover(config.roots, backends);
    for (const auto& backend : backends) facts.backends.push_back(backend->status());
    facts.gpus_found = snapshot.gpus.size();
    facts.processes_scanned = snapshot.processes_scanned;
    facts.processes_denied = snapshot.processes_denied;
    facts.access = read_process_access_facts(config.roots, snapshot.denied_pids);
    facts.procfs_readable = access((config.roots.procfs + "/self/stat").c_str(), R_OK) == 0;
    facts.nvidia_device_nodes = count_entries(config.roots.devfs, std::regex("nvidia[0-9]+"));
    facts.dri_device_nodes =
        count_entries(config.roots.devfs + "/dri", std::regex("(card|renderD)[0-9]+"));
    struct stat info {};
    facts.kfd_present = stat((config.roots.devfs + "/kfd").c_str(), &info) == 0;
    for (CriRuntime runtime : {CriRuntime::containerd, CriRuntime::cri_o}) {
        DoctorFacts::CriRuntimeFacts found{.name = to_string(runtime)};
        found.bundle_dir = config.roots.rundir + "/" + std::string(bundle_directory(runtime));
        found.socket_path =
            config.roots.rundir + "/" +
            std::string(runtime == CriRuntime::containerd ? kContainerdSocket : kCrioSocket);
        found.bundles = access(found.bundle_dir.c_str(), R_OK | X_OK) == 0;
        found.socket = stat(found.socket_path.c_str(), &info) == 0 && S_ISSOCK(info.st_mode);
        facts.cri_runtimes.push_back(std::move(found));
    }
    facts.state_dir = config.state_dir;
    facts.state_dir_writable = writable_or_creatable(config.state_dir);
    // The sources alone: a tracker's first sweep would read every process's fds again.
    const auto sources = HolderTracker::probe(config.roots, facts.holder_tracking_unavailable);
    if (!sources) {
        if (facts.holder_tracking_unavailable.empty())
            facts.holder_tracking_unavailable = "unknown";
    } else {
        facts.holder_tracking_unavailable.clear();
        facts.holder_events_buffer_bytes = sources->receive_buffer_bytes;
        facts.holder_events_filtered = sources->events_filtered;
    }
    return facts;
}

nlohmann::json doctor_json(const std::vector<DoctorCheck>& checks) {
    nlohmann::json document{{"schema_version", 1}, {"checks", nlohmann::json::array()}};
    for (const DoctorCheck& check : checks) {
        document["checks"].push_back(
            {{"name", check.name},
             {"level", to_string(check.level)},
             {"detail", check.detail},
             {"advice", check.advice ? nlohmann::json(*check.advice) : nlohmann::json()}});
    }
    return document;
}

bool any_check_failed(const std::vector<DoctorCheck>& checks) {
    return std::any_of(checks.begin(), checks.end(),
                       [](const DoctorCheck& c) { return c.level == CheckLevel::fail; });
}

}  // namespace gpukill::engine
