// The facts the guard policy's projects are matched on beyond the selectors: a holder's
// Kubernetes namespace (resolved with the snapshot: ContainerInfo::pod_namespace, see
// host/pod_namespaces.hpp) and its Slurm account (SLURM_JOB_ACCOUNT, which slurmd puts
// in every job's environment, read here). Read only for GPU holders, and only when the
// policy has projects.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "guard/evaluate.hpp"
#include "guard/policy.hpp"
#include "host/roots.hpp"
#include "model/snapshot.hpp"

namespace gpukill::engine {

// NAME's value in a /proc/PID/environ text (NUL-separated NAME=VALUE). Pure.
std::optional<std::string> environment_value(std::string_view environ, std::string_view name);

std::map<guard::IdentityKey, guard::ProjectFacts> read_project_facts(const guard::Policy& policy,
                                                                     const Snapshot& snapshot,
                                                                     const HostRoots& roots);

}  // namespace gpukill::engine
