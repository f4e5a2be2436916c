// parse_proc_cgroup: which container (and Kubernetes pod) a process runs in, read from the
// cgroup path names container runtimes and the kubelet create. The rules and the runtime
// names are documented at the declaration in proc_parse.hpp.
#include <string>

#include "host/proc_parse.hpp"
#include "model/kubernetes_names.hpp"
#include "model/parse_util.hpp"

namespace gpukill {
namespace {

constexpr std::size_t kContainerIdLength = 64;

bool is_container_id(std::string_view s) {
    return s.size() == kContainerIdLength && text::all_of_hex(s);
}

// "<prefix><64 hex>[.scope]" as systemd-managed runtimes name a container's scope unit
// (and cri-o and podman name their cgroupfs directories). "crio-conmon-<id>.scope" and
// "libpod-conmon-<id>.scope" hold the monitor, not the container, and do not match.
struct ScopePrefix {
    std::string_view prefix;
    std::string_view runtime;
};
constexpr ScopePrefix kScopePrefixes[] = {
    {"docker-", "docker"},
    {"cri-containerd-", "containerd"},
    {"crio-", "cri-o"},
    {"libpod-", "podman"},
};

std::optional<ContainerInfo> match_scope(std::string_view segment) {
    if (segment.ends_with(".scope")) segment.remove_suffix(6);
    for (const auto& [prefix, runtime] : kScopePrefixes) {
        if (segment.starts_with(prefix) && is_container_id(segment.substr(prefix.size()))) {
            return ContainerInfo{.runtime = std::string(runtime),
                                 .id = std::string(segment.substr(prefix.size()))};
        }
    }
    return std::nullopt;
}

// The pod UID in a kubelet cgroup name, with dashes:
//   systemd driver:  "kubepods-burstable-pod1234abcd_..._ef.slice" (systemd escapes '-' as '_'),
//                    also "kubelet-kubepods-...-pod<uid>.slice" when the kubelet runs nested
//   cgroupfs driver: "pod1234abcd-...-ef" below a "kubepods" directory
std::optional<std::string> match_pod(std::string_view segment, bool under_kubepods) {
    std::string_view uid;
    if (segment.ends_with(".slice") && segment.find("kubepods") != std::string_view::npos) {
        const auto pod = segment.rfind("-pod");
        if (pod == std::string_view::npos || pod + 4 > segment.size() - 6) return std::nullopt;
        uid = segment.substr(pod + 4, segment.size() - 6 - (pod + 4));
    } else if (under_kubepods && segment.starts_with("pod")) {
        uid = segment.substr(3);
    } else {
        return std::nullopt;
    }
    std::string result(uid);
    for (char& c : result) {
        if (c == '_') c = '-';
    }
    if (!is_pod_uid(result)) return std::nullopt;
    return result;
}

// One cgroup path. Nested setups (a kind node is a docker container running a kubelet)
// hold several container names; the innermost one is the process's own, so later
// segments override earlier ones.
std::optional<ContainerInfo> parse_cgroup_path(std::string_view path) {
    std::optional<ContainerInfo> container;
    std::optional<std::string> pod_uid;
    bool under_kubepods = false;
    std::string_view previous;

    while (!path.empty()) {
        const auto slash = path.find('/');
        const auto segment = path.substr(0, slash);
        path.remove_prefix(slash == std::string_view::npos ? path.size() : slash + 1);
        if (segment.empty()) continue;

        if (segment == "kubepods" || segment.starts_with("kubepods.") ||
            segment.starts_with("kubepods-")) {
            under_kubepods = true;
        }
        if (auto uid = match_pod(segment, under_kubepods)) {
            pod_uid = std::move(uid);
            container.reset();  // any container seen so far is an outer layer
        } else if (auto scoped = match_scope(segment)) {
            container = std::move(scoped);
        } else if (is_container_id(segment) && previous == "docker") {
            container = ContainerInfo{.runtime = "docker", .id = std::string(segment)};
        } else if (is_container_id(segment) && pod_uid) {
            // cgroupfs driver: ".../pod<uid>/<id>" does not name the runtime.
            container = ContainerInfo{.runtime = "kubernetes", .id = std::string(segment)};
        }
        previous = segment;
    }

    if (!container && !pod_uid) return std::nullopt;
    if (!container) container = ContainerInfo{.runtime = "kubernetes", .id = ""};
    container->pod_uid = std::move(pod_uid);
    return container;
}

}  // namespace

std::optional<ContainerInfo> parse_proc_cgroup(std::string_view text) {
    std::optional<ContainerInfo> best;
    text::for_each_line(text, [&](std::string_view line) {
        // "hierarchy-ID:controller-list:path"; the path itself may contain ':'.
        const auto first = line.find(':');
        if (first == std::string_view::npos) return;
        const auto second = line.find(':', first + 1);
        if (second == std::string_view::npos) return;
        auto path = line.substr(second + 1);
        // cgroup v2 marks a removed cgroup that still has this process as " (deleted)".
        constexpr std::string_view deleted = " (deleted)";
        if (path.ends_with(deleted)) path.remove_suffix(deleted.size());

        auto found = parse_cgroup_path(path);
        if (!found) return;
        // v1 lists one line per hierarchy and they may disagree (a controller left at the
        // root); the first line that names a container id wins over ones that do not.
        if (!best || (best->id.empty() && !found->id.empty())) best = std::move(found);
    });
    return best;
}

}  // namespace gpukill
