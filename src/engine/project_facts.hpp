// The facts the guard policy's projects are matched on beyond the selectors, each from a
// record its user cannot write: a holder's Kubernetes namespace (its pod UID from its
// cgroup, the namespace from the kubelet's records: ContainerInfo::pod_namespace, see
// host/pod_namespaces.hpp) and its Slurm account (its job id from its cgroup, the
// account from slurmctld: host/slurm_accounts.hpp). Never the process's environment:
// SLURM_JOB_ACCOUNT is whatever the process set. Read only for GPU holders, and only
// when the policy has projects.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "guard/evaluate.hpp"
#include "host/slurm_accounts.hpp"
#include "model/guard_policy.hpp"
#include "model/snapshot.hpp"

namespace gpukill::engine {

// `notes` gets why accounts were unknown (scontrol missing or failing), once a call.
std::map<guard::IdentityKey, guard::ProjectFacts> read_project_facts(
    const guard::Policy& policy, const Snapshot& snapshot, SlurmAccounts& accounts,
    std::vector<std::string>& notes);

}  // namespace gpukill::engine
