#include "engine/guard_enforce.hpp"

#include <signal.h>

#include <algorithm>

#include "audit/reclaim_records.hpp"
#include "discovery/discover.hpp"
#include "engine/act_records.hpp"
#include "host/process_table.hpp"
#include "reclaim/act_and_verify.hpp"
#include "reclaim/safety_context.hpp"
#include "reclaim/system_program.hpp"

namespace gpukill::engine {
namespace {

using guard::DueAction;
using guard::Verdict;

const reclaim::TargetResult* result_for(const reclaim::ExecuteResult& executed, pid_t pid) {
    for (const reclaim::TargetResult& result : executed.targets) {
        if (result.target.identity.pid == pid) return &result;
    }
    return nullptr;
}

// A plan for `group` (one verdict). Named PIDs the safety rules refuse abort a plan, so
// they are reported as refused and the plan is built again without them; a named
// target whose start time is not the decided one is another process (the PID was
// reused since the snapshot) and is dropped.
reclaim::KillPlan plan_for(const Snapshot& snapshot, const reclaim::ProcessTable& table,
                           const reclaim::SafetyContext& safety, std::vector<DueAction> group,
                           std::vector<EnforcedAction>& out) {
    for (int attempt = 0; attempt < 2; ++attempt) {
        reclaim::Selectors selectors;
        for (const DueAction& action : group) {
            selectors.pid_arguments.push_back(std::to_string(action.identity.pid));
        }
        auto plan = reclaim::build_kill_plan(snapshot, table, selectors, safety);
        if (!plan) {  // only malformed selectors fail, and PIDs as digits are not
            for (const DueAction& action : group)
                out.push_back({action, "refused", plan.error().what});
            return {};
        }
        if (!plan->aborted()) {
            std::erase_if(plan->targets, [&](const reclaim::PlannedTarget& target) {
                if (target.reason != reclaim::TargetReason::named_pid) return false;
                auto decided = std::find_if(group.begin(), group.end(), [&](const DueAction& a) {
                    return a.identity.pid == target.identity.pid;
                });
                if (decided == group.end() || decided->identity == target.identity) return false;
                out.push_back({*decided, "gone", "PID reused by another process"});
                return true;
            });
            return *plan;
        }
        std::erase_if(group, [&](const DueAction& action) {
            for (const reclaim::Refusal& refusal : plan->refusals) {
                if (refusal.pid == action.identity.pid && refusal.explicitly_named) {
                    out.push_back({action, "refused", refusal.why});
                    return true;
                }
            }
            return false;
        });
        if (group.empty()) return {};
    }
    return {};
}

}  // namespace

std::vector<EnforcedAction> enforce_due_actions(const EnforceInputs& inputs,
                                                const Snapshot& snapshot,
                                                const std::vector<DueAction>& due,
                                                const audit::Invocation& who) {
    std::vector<EnforcedAction> out;
    if (due.empty()) return out;
    const HostRoots& roots = inputs.roots;
    auto table = read_process_table(roots);
    reclaim::SafetyContext safety = reclaim::gather_safety_context(roots, inputs.protected_list);
    if (!table || !safety.procfs_is_own_pid_namespace) {
        const std::string why =
            !table ? table.error().what : roots.procfs + " is not this process's PID namespace";
        for (const DueAction& action : due) out.push_back({action, "refused", why});
        return out;
    }
    reclaim::find_system_programs(roots, snapshot, *table, safety);
    for (Verdict verdict : {Verdict::kill, Verdict::terminate}) {
        std::vector<DueAction> group;
        for (const DueAction& action : due) {
            if (action.verdict == verdict) group.push_back(action);
        }
        if (group.empty()) continue;
        reclaim::KillPlan plan = plan_for(snapshot, *table, safety, group, out);
        if (plan.targets.empty()) continue;
        inputs.audit(audit::plan_records(who, plan, inputs.clock()));
        const auto seconds = [](std::chrono::seconds s) { return static_cast<double>(s.count()); };
        const double kill_timeout = seconds(inputs.kill_timeout);
        const reclaim::ActOptions act{
            .execute = {.first_signal = verdict == Verdict::kill ? SIGKILL : SIGTERM,
                        .timeout_seconds = verdict == Verdict::kill
                                               ? kill_timeout
                                               : seconds(inputs.terminate_timeout),
                        .force = verdict == Verdict::terminate,
                        .kill_timeout_seconds = kill_timeout},
            .verify = {.timeout_seconds = seconds(inputs.verify_timeout)}};
        const reclaim::ActOutcome done =
            reclaim::act_and_verify(plan, roots, act,
                                    {.gpus = [&] { return discover_gpus(inputs.backends); },
                                     .full = [&] { return discover(roots, inputs.backends); }},
                                    act_recorder(who, inputs.clock, inputs.audit));
        const reclaim::ExecuteResult& executed = done.executed;
        for (const DueAction& action : group) {
            const bool reported = std::any_of(out.begin(), out.end(), [&](const EnforcedAction& e) {
                return e.action.identity == action.identity;
            });
            if (reported) continue;
            const reclaim::TargetResult* result = result_for(executed, action.identity.pid);
            if (result == nullptr) {
                out.push_back({action, "refused", "not in the plan"});
                continue;
            }
            out.push_back({action, reclaim::to_string(result->outcome), result->note});
        }
    }
    return out;
}

}  // namespace gpukill::engine
