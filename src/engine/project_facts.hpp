// The facts the guard policy's projects are matched on that are not in the snapshot: a
// holder's Kubernetes namespace (its pod UID from the cgroup, named by the kubelet's pod
// log directories, /var/log/pods/NAMESPACE_POD_UID: the kubelet's own view on disk,
// reachable from a DaemonSet that mounts it) and its Slurm account (SLURM_JOB_ACCOUNT,
// which slurmd puts in every job's environment). Read only for GPU holders, and only
// when the policy has projects.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "guard/evaluate.hpp"
#include "guard/policy.hpp"
#include "host/roots.hpp"
#include "model/snapshot.hpp"

namespace gpukill::engine {

inline constexpr const char* kKubeletPodLogs = "/var/log/pods";

// Pod UID -> namespace from the names of the kubelet's pod log directories
// ("NAMESPACE_PODNAME_UID"; namespaces and pod names hold no '_'). Pure.
std::map<std::string, std::string> pod_namespaces_from_names(
    const std::vector<std::string>& directory_names);

// NAME's value in a /proc/PID/environ text (NUL-separated NAME=VALUE). Pure.
std::optional<std::string> environment_value(std::string_view environ, std::string_view name);

std::map<guard::IdentityKey, guard::ProjectFacts> read_project_facts(
    const guard::Policy& policy, const Snapshot& snapshot, const HostRoots& roots,
    const std::string& pod_logs = kKubeletPodLogs);

}  // namespace gpukill::engine
