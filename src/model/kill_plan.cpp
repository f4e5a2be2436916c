#include "model/kill_plan.hpp"

#include <algorithm>

namespace gpukill::reclaim {

const char* to_string(TargetReason reason) {
    switch (reason) {
        case TargetReason::named_pid:
            return "named_pid";
        case TargetReason::selector_match:
            return "selector_match";
        case TargetReason::holds_same_gpu:
            return "holds_same_gpu";
        case TargetReason::tree_member:
            return "tree_member";
        case TargetReason::group_member:
            return "group_member";
    }
    return "unknown";
}

const char* to_string(RefusalKind kind) {
    switch (kind) {
        case RefusalKind::invalid_pid:
            return "invalid_pid";
        case RefusalKind::not_found:
            return "not_found";
        case RefusalKind::init:
            return "init";
        case RefusalKind::self_or_ancestor:
            return "self_or_ancestor";
        case RefusalKind::kernel_thread:
            return "kernel_thread";
        case RefusalKind::protected_process:
            return "protected_process";
        case RefusalKind::permission:
            return "permission";
        case RefusalKind::stale_identity:
            return "stale_identity";
        case RefusalKind::holds_no_gpu:
            return "holds_no_gpu";
        case RefusalKind::gpu_unknown:
            return "gpu_unknown";
    }
    return "unknown";
}

bool KillPlan::aborted() const {
    return std::any_of(refusals.begin(), refusals.end(),
                       [](const Refusal& refusal) { return refusal.explicitly_named; });
}

}  // namespace gpukill::reclaim
