#include "engine/project_facts.hpp"

#include <fcntl.h>

#include "host/fd_io.hpp"

namespace gpukill::engine {

std::optional<std::string> environment_value(std::string_view environ, std::string_view name) {
    while (!environ.empty()) {
        const auto end = environ.find('\0');
        const std::string_view entry = environ.substr(0, end);
        environ.remove_prefix(end == std::string_view::npos ? environ.size() : end + 1);
        if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=') {
            return std::string(entry.substr(name.size() + 1));
        }
    }
    return std::nullopt;
}

std::map<guard::IdentityKey, guard::ProjectFacts> read_project_facts(const guard::Policy& policy,
                                                                     const Snapshot& snapshot,
                                                                     const HostRoots& roots) {
    std::map<guard::IdentityKey, guard::ProjectFacts> facts;
    bool want_namespaces = false;
    bool want_accounts = false;
    for (const guard::ProjectRule& project : policy.projects) {
        want_namespaces = want_namespaces || !project.match.kubernetes_namespaces.empty();
        want_accounts = want_accounts || !project.match.slurm_accounts.empty();
    }
    if (!want_namespaces && !want_accounts) return facts;

    for (const SnapshotProcess& process : snapshot.processes) {
        if (!process.info_complete || process.gpus.empty()) continue;
        const ProcessInfo& info = process.info;
        guard::ProjectFacts found;
        if (want_namespaces && info.container) {
            found.kubernetes_namespace = info.container->pod_namespace;
        }
        if (want_accounts) {
            const std::string path = roots.procfs + "/" + std::to_string(info.pid) + "/environ";
            if (auto environ = read_file_at(AT_FDCWD, path.c_str())) {
                found.slurm_account = environment_value(*environ, "SLURM_JOB_ACCOUNT");
            }
        }
        if (found.kubernetes_namespace || found.slurm_account) {
            facts[{info.pid, info.start_time_ticks}] = std::move(found);
        }
    }
    return facts;
}

}  // namespace gpukill::engine
