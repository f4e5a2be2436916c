#include "reclaim/plan_builder.hpp"

#include <algorithm>
#include <unordered_set>

#include "reclaim/safety_check.hpp"

namespace gpukill::reclaim {
namespace {

// Whether `pid` or a process below it holds a GPU device (in the snapshot). The walk is
// bounded by the table: each PID is visited once.
bool holds_gpu_itself_or_below(const ProcessIndex& index, pid_t pid) {
    std::vector<pid_t> pending{pid};
    std::unordered_set<pid_t> seen{pid};
    while (!pending.empty()) {
        const pid_t next = pending.back();
        pending.pop_back();
        if (index.holder(next) != nullptr) return true;
        for (pid_t child : index.children(next)) {
            if (seen.insert(child).second) pending.push_back(child);
        }
    }
    return false;
}

}  // namespace

bool PlanBuilder::consider(pid_t pid, TargetReason reason, std::string detail,
                           bool explicitly_named) {
    if (decided_.contains(pid)) return target_pids_.contains(pid);
    const std::string number = std::to_string(pid);
    const ProcessInfo* info = index_.info(pid);
    if (info == nullptr) {
        refuse(Refusal{.pid = pid,
                       .argument = explicitly_named ? number : std::string(),
                       .kind = RefusalKind::not_found,
                       .why = explicitly_named
                                  ? "no process " + number + " on this host"
                                  : "PID " + number + " holds a GPU but is not in /proc " +
                                        "(it exited, or lives in another PID namespace)",
                       .explicitly_named = explicitly_named});
        return false;
    }
    if (index_.reused(pid)) {
        refuse(Refusal{.pid = pid,
                       .name = info->comm,
                       .kind = RefusalKind::stale_identity,
                       .why = "PID " + number + " now belongs to another process (" + info->comm +
                              ") than the GPU holder seen",
                       .explicitly_named = explicitly_named});
        return false;
    }
    if (auto refusal = check_safety(*info, safety_, explicitly_named)) {
        refuse(std::move(*refusal));
        return false;
    }
    if (explicitly_named && named_must_hold_gpu_ && !holds_gpu_itself_or_below(index_, pid)) {
        refuse(Refusal{.pid = pid,
                       .argument = number,
                       .name = info->comm,
                       .kind = RefusalKind::holds_no_gpu,
                       .why = "PID " + number + " (" + info->comm +
                              ") holds no GPU, and no process it started does; add "
                              "--any-process to end it anyway",
                       .explicitly_named = true});
        return false;
    }

    PlannedTarget target{.identity = info->identity(),
                         .name = info->comm,
                         .user = info->user,
                         .uid = info->uid,
                         .state = info->state,
                         .reason = reason,
                         .reason_detail = std::move(detail)};
    if (const SnapshotProcess* holder = index_.holder(pid)) {
        for (const ProcessGpuUse& use : holder->gpus) {
            target.gpus.push_back(use.gpu_index);
            if (use.memory_bytes) target.memory_bytes[use.gpu_index] = *use.memory_bytes;
        }
        std::sort(target.gpus.begin(), target.gpus.end());
    }
    decided_.insert(pid);
    target_pids_.insert(pid);
    plan_.targets.push_back(std::move(target));
    return true;
}

void PlanBuilder::refuse(Refusal refusal) {
    if (refusal.pid > 0) decided_.insert(refusal.pid);
    plan_.refusals.push_back(std::move(refusal));
}

KillPlan PlanBuilder::finish() && {
    std::sort(plan_.targets.begin(), plan_.targets.end(),
              [](const PlannedTarget& a, const PlannedTarget& b) {
                  return a.identity.pid < b.identity.pid;
              });
    return std::move(plan_);
}

}  // namespace gpukill::reclaim
