#include "engine/project_facts.hpp"

namespace gpukill::engine {

std::map<guard::IdentityKey, guard::ProjectFacts> read_project_facts(
    const guard::Policy& policy, const Snapshot& snapshot, SlurmAccounts& accounts,
    std::vector<std::string>& notes) {
    std::map<guard::IdentityKey, guard::ProjectFacts> facts;
    bool want_namespaces = false;
    bool want_accounts = false;
    for (const guard::ProjectRule& project : policy.projects) {
        want_namespaces = want_namespaces || !project.match.kubernetes_namespaces.empty();
        want_accounts = want_accounts || !project.match.slurm_accounts.empty();
    }
    if (!want_namespaces && !want_accounts) return facts;

    const auto now = SlurmAccounts::Clock::now();
    std::optional<std::string> problem;
    for (const SnapshotProcess& process : snapshot.processes) {
        if (!process.info_complete || process.gpus.empty()) continue;
        const ProcessInfo& info = process.info;
        guard::ProjectFacts found;
        if (want_namespaces && info.container) {
            found.kubernetes_namespace = info.container->pod_namespace;
        }
        if (want_accounts && info.slurm_job) {
            found.slurm_account = accounts.account_of(info.slurm_job->job_id, now);
            if (accounts.problem()) problem = accounts.problem();
        }
        if (found.kubernetes_namespace || found.slurm_account) {
            facts[{info.pid, info.start_time_ticks}] = std::move(found);
        }
    }
    if (problem) notes.push_back(*problem);
    return facts;
}

}  // namespace gpukill::engine
