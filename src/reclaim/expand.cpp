#include "reclaim/expand.hpp"

#include <algorithm>
#include <deque>
#include <iterator>
#include <set>
#include <string>

namespace gpukill::reclaim {
namespace {

std::vector<unsigned> shared_gpus(const std::vector<unsigned>& a, const std::vector<unsigned>& b) {
    std::vector<unsigned> shared;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(shared));
    return shared;
}

std::string gpu_list(const std::vector<unsigned>& gpus) {
    std::string out = gpus.size() == 1 ? "GPU " : "GPUs ";
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        if (i > 0) out += ", ";
        out += std::to_string(gpus[i]);
    }
    return out;
}

// Every descendant of `root` by ppid links, breadth first. The visited set guards against
// a cycle a non-atomic read of /proc could show if PIDs were reused mid-read.
std::vector<pid_t> descendants(const ProcessIndex& index, pid_t root) {
    std::vector<pid_t> found;
    std::set<pid_t> visited{root};
    std::deque<pid_t> queue{root};
    while (!queue.empty()) {
        const pid_t parent = queue.front();
        queue.pop_front();
        for (pid_t child : index.children(parent)) {
            if (!visited.insert(child).second) continue;
            found.push_back(child);
            queue.push_back(child);
        }
    }
    return found;
}

void expand_one(PlanBuilder& builder, const ProcessIndex& index, const Selectors& selectors,
                const SafetyContext& safety, const PlannedTarget& target) {
    const pid_t root = target.identity.pid;
    const std::string of = std::to_string(root);
    for (pid_t child : descendants(index, root)) {
        // An observer child (a trainer's nvidia-smi) keeps none of its parent's memory.
        const SnapshotProcess* held = index.holder(child);
        const bool observer = held != nullptr && held->observer();
        const auto shared =
            observer ? std::vector<unsigned>{} : shared_gpus(target.gpus, index.gpus(child));
        if (!shared.empty()) {
            builder.consider(child, TargetReason::holds_same_gpu,
                             "descendant of " + of + " holding " + gpu_list(shared), false);
        }
        if (selectors.tree) {
            builder.consider(child, TargetReason::tree_member, "descendant of " + of + " (--tree)",
                             false);
        }
    }
    if (!selectors.group) return;
    const ProcessInfo* info = index.info(root);
    // gpukill's own group, and the groups of the processes it runs under (a script's
    // pipeline under sudo or setsid), are never swept up.
    if (info == nullptr || info->pgid <= 1 || info->pgid == safety.self_pgid ||
        safety.ancestor_pgids.contains(info->pgid)) {
        return;
    }
    for (pid_t member : index.group(info->pgid)) {
        builder.consider(
            member, TargetReason::group_member,
            "in process group " + std::to_string(info->pgid) + " of " + of + " (--group)", false);
    }
}

}  // namespace

void expand_targets(PlanBuilder& builder, const ProcessIndex& index, const Selectors& selectors,
                    const SafetyContext& safety) {
    // Targets are appended while expanding, so walk by position and copy each one first.
    for (std::size_t i = 0; i < builder.targets().size(); ++i) {
        const PlannedTarget target = builder.targets()[i];
        expand_one(builder, index, selectors, safety, target);
    }
}

}  // namespace gpukill::reclaim
