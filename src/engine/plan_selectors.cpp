#include "engine/plan_selectors.hpp"

namespace gpukill::engine {

reclaim::Selectors plan_selectors(const MatchSelectors& selectors) {
    reclaim::Selectors out;
    out.filter = selectors.filter;
    out.user = selectors.user;
    out.container = selectors.container;
    out.slurm_job = selectors.slurm_job;
    out.pod_namespace = selectors.pod_namespace;
    out.pod = selectors.pod;
    out.image = selectors.image;
    out.not_image = selectors.not_image;
    out.min_memory_bytes = selectors.min_memory_bytes;
    out.orphaned = selectors.orphaned;
    out.unlisted = selectors.unlisted;
    return out;
}

reclaim::Selectors plan_selectors(const KillRequest& request) {
    reclaim::Selectors out = plan_selectors(static_cast<const MatchSelectors&>(request));
    out.pid_arguments = request.pids;
    out.tree = request.tree;
    out.group = request.group;
    out.batch = request.batch;
    out.any_process = request.any_process;
    return out;
}

}  // namespace gpukill::engine
