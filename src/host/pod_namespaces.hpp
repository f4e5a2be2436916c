// Which Kubernetes namespace a pod is in, and its name, by its UID, where the runtime's
// bundle (host/cri_bundle.hpp) does not say. The cgroup gives a container's pod UID
// (ContainerInfo::pod_uid) but not its names; the kubelet names each pod's log directory
// /var/log/pods/NAMESPACE_PODNAME_UID, which a DaemonSet can mount read-only
// (deploy/kubernetes), so both are known without asking the API server.
//
// The directory is listed only when a pod UID is not known yet, at most once per
// `relist_after`, so a host whose pods have no log directory (not Kubernetes, or the
// directory not mounted) costs one failed listing a minute, not one per snapshot. The
// map holds what the last listing found and no more: it cannot grow for weeks.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpukill {

inline constexpr const char* kKubeletPodLogs = "/var/log/pods";

// Pod UID -> namespace from the names of the kubelet's pod log directories
// ("NAMESPACE_PODNAME_UID"; namespaces and pod names hold no '_'). Pure.
std::map<std::string, std::string> pod_namespaces_from_names(
    const std::vector<std::string>& directory_names);

// A pod as its log directory names it.
struct KubeletPod {
    std::string pod_namespace;
    std::string name;
};

class PodNamespaces {
  public:
    using Clock = std::chrono::steady_clock;

    explicit PodNamespaces(std::string pod_logs_dir,
                           std::chrono::seconds relist_after = std::chrono::seconds(60))
        : dir_(std::move(pod_logs_dir)), relist_after_(relist_after) {}

    // The namespace and name of pod `pod_uid`, from the last listing or a new one.
    std::optional<KubeletPod> pod_of(const std::string& pod_uid, Clock::time_point now);
    std::optional<std::string> namespace_of(const std::string& pod_uid, Clock::time_point now) {
        auto pod = pod_of(pod_uid, now);
        if (!pod) return std::nullopt;
        return pod->pod_namespace;
    }

  private:
    std::string dir_;
    std::chrono::seconds relist_after_;
    std::optional<Clock::time_point> listed_at_;
    std::map<std::string, KubeletPod> pods_;
};

}  // namespace gpukill
