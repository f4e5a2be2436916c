#include "host/pod_namespaces.hpp"

#include <filesystem>
#include <system_error>

namespace gpukill {

std::map<std::string, std::string> pod_namespaces_from_names(
    const std::vector<std::string>& directory_names) {
    std::map<std::string, std::string> namespaces;
    for (const std::string& name : directory_names) {
        const auto first = name.find('_');
        const auto last = name.rfind('_');
        if (first == std::string::npos || first == 0 || last == first || last + 1 >= name.size()) {
            continue;
        }
        namespaces[name.substr(last + 1)] = name.substr(0, first);
    }
    return namespaces;
}

std::optional<std::string> PodNamespaces::namespace_of(const std::string& pod_uid,
                                                       Clock::time_point now) {
    const bool may_relist = !listed_at_ || now - *listed_at_ >= relist_after_;
    if (!namespaces_.contains(pod_uid) && may_relist) {
        listed_at_ = now;
        std::vector<std::string> names;
        std::error_code failed;
        for (std::filesystem::directory_iterator it(dir_, failed), end; !failed && it != end;
             it.increment(failed)) {
            names.push_back(it->path().filename().string());
        }
        namespaces_ = pod_namespaces_from_names(names);
    }
    const auto known = namespaces_.find(pod_uid);
    if (known == namespaces_.end()) return std::nullopt;
    return known->second;
}

}  // namespace gpukill
