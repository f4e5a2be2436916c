#include "host/pod_namespaces.hpp"

#include <filesystem>
#include <system_error>

#include "model/kubernetes_names.hpp"

namespace gpukill {

namespace {

// "NAMESPACE_PODNAME_UID" -> (UID, the pod); empty for any other name.
std::optional<std::pair<std::string, KubeletPod>> pod_from_name(const std::string& name) {
    const auto first = name.find('_');
    const auto last = name.rfind('_');
    if (first == std::string::npos || first == 0 || last == first || last + 1 >= name.size()) {
        return std::nullopt;
    }
    KubeletPod pod{name.substr(0, first), name.substr(first + 1, last - first - 1)};
    // Names the API server would refuse did not come from the kubelet.
    if (!is_kubernetes_label(pod.pod_namespace) || !is_kubernetes_subdomain(pod.name)) {
        return std::nullopt;
    }
    return std::pair(name.substr(last + 1), std::move(pod));
}

}  // namespace

std::map<std::string, std::string> pod_namespaces_from_names(
    const std::vector<std::string>& directory_names) {
    std::map<std::string, std::string> namespaces;
    for (const std::string& name : directory_names) {
        if (auto pod = pod_from_name(name)) namespaces[pod->first] = pod->second.pod_namespace;
    }
    return namespaces;
}

std::optional<KubeletPod> PodNamespaces::pod_of(const std::string& pod_uid, Clock::time_point now) {
    const bool may_relist = !listed_at_ || now - *listed_at_ >= relist_after_;
    if (!pods_.contains(pod_uid) && may_relist) {
        listed_at_ = now;
        pods_.clear();
        std::error_code failed;
        for (std::filesystem::directory_iterator it(dir_, failed), end; !failed && it != end;
             it.increment(failed)) {
            if (auto pod = pod_from_name(it->path().filename().string())) {
                pods_.insert(std::move(*pod));
            }
        }
    }
    const auto known = pods_.find(pod_uid);
    if (known == pods_.end()) return std::nullopt;
    return known->second;
}

}  // namespace gpukill
