// A host process as gpukill sees it: plain data, filled by src/host readers.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpukill {

struct ContainerInfo {
    std::string runtime;                 // "docker", "containerd", "cri-o", "podman", "kubernetes"
    std::string id;                      // full container id (64 hex) where known, else ""
    std::optional<std::string> pod_uid;  // Kubernetes pod UID with dashes, when under kubepods
    // The pod's namespace: from the runtime's bundle (host/cri_bundle.hpp), else named
    // by the kubelet's pod log directory for pod_uid (host/pod_namespaces.hpp); unknown
    // where neither is visible.
    std::optional<std::string> pod_namespace;
    // The image the container runtime says it runs ("nvcr.io/nvidia/pytorch:24.01-py3"):
    // from the bundle containerd or CRI-O wrote for the container (host/cri_bundle.hpp),
    // else from a Docker or Podman API (host/container_runtime.hpp); unknown without
    // either.
    std::optional<std::string> image;
    // The pod's name and the container's name in it, as the kubelet gave them to the
    // runtime (host/cri_bundle.hpp); unknown outside Kubernetes or without the bundle.
    std::optional<std::string> pod_name;
    std::optional<std::string> container_name;
};

// The Slurm job a process runs in, from the cgroup slurmd creates for it: cgroup v1
// /slurm[_NODE]/uid_U/job_J/step_S/..., cgroup v2 /system.slice/slurmstepd.scope/job_J/
// step_S/... (the uid is not in the v2 path).
struct SlurmJobInfo {
    std::string job_id;
    std::optional<std::string> step;  // "0", "batch", "extern", "interactive"
    std::optional<uid_t> uid;
    friend bool operator==(const SlurmJobInfo&, const SlurmJobInfo&) = default;
};

// Identity of a process: a PID alone is reusable, PID plus start time is not.
struct ProcessIdentity {
    pid_t pid = 0;
    std::uint64_t start_time_ticks = 0;  // field 22 of /proc/PID/stat, clock ticks since boot
    friend bool operator==(const ProcessIdentity&, const ProcessIdentity&) = default;
};

struct ProcessInfo {
    pid_t pid = 0;
    pid_t ppid = 0;
    pid_t pgid = 0;
    pid_t sid = 0;
    std::optional<uid_t> uid;  // real uid from status; unknown if status was unreadable
    std::string user;          // name for uid, or the number as text when no name exists
    std::string comm;
    std::vector<std::string> cmdline;  // empty for kernel threads and zombies
    std::optional<std::string> exe;    // target of /proc/PID/exe without " (deleted)"; unknown
                                       // when not permitted
    bool exe_deleted = false;
    std::uint64_t start_time_ticks = 0;
    char state = '?';            // R, S, D, Z, T, t, X, I...
    std::vector<pid_t> nspid;    // NSpid from status: host PID first, innermost last
    bool kernel_thread = false;  // PF_KTHREAD in the stat flags
    std::optional<ContainerInfo> container;
    std::optional<SlurmJobInfo> slurm_job;

    ProcessIdentity identity() const { return {pid, start_time_ticks}; }
};

}  // namespace gpukill
