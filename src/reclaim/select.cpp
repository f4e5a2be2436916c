// build_kill_plan: named PIDs and match selectors give the candidates, every candidate
// passes the safety rules, and the targets grow to the workers holding their GPUs.
//
// Named PIDs with match selectors: the named PIDs are the candidates and the selectors
// are conditions on them (`--pid 4242 --gpu 0`: "4242, and only if it holds GPU 0"). A
// named PID the selectors exclude is a named refusal, which aborts the plan: the caller's
// belief about that process was wrong, so nothing is signalled.
#include <algorithm>
#include <string>

#include "model/parse_util.hpp"
#include "reclaim/expand.hpp"
#include "reclaim/match.hpp"
#include "reclaim/plan_builder.hpp"
#include "reclaim/plan_memory.hpp"
#include "reclaim/process_index.hpp"
#include "reclaim/select.hpp"

namespace gpukill::reclaim {
namespace {

// Parses every --pid argument; invalid ones are named refusals. Returns the valid PIDs in
// the order given, each once.
std::vector<pid_t> parse_named(const Selectors& selectors, const SafetyContext& safety,
                               PlanBuilder& builder) {
    std::vector<pid_t> named;
    for (const std::string& argument : selectors.pid_arguments) {
        auto pid = parse_target_pid(argument, safety.pid_max);
        if (!pid) {
            // The number it would have addressed ("-5", "4194305"), 0 for text.
            builder.refuse(Refusal{.pid = text::parse_int<pid_t>(argument).value_or(0),
                                   .argument = argument,
                                   .kind = RefusalKind::invalid_pid,
                                   .why = pid.error().what,
                                   .explicitly_named = true});
            continue;
        }
        if (std::find(named.begin(), named.end(), *pid) == named.end()) named.push_back(*pid);
    }
    return named;
}

void add_named(const std::vector<pid_t>& named, const Selectors& selectors, const Matcher& matcher,
               const ProcessIndex& index, PlanBuilder& builder) {
    const bool filtered = selectors.has_match_selector();
    for (pid_t pid : named) {
        const ProcessInfo* info = index.info(pid);
        if (filtered && info != nullptr && !index.reused(pid)) {
            if (!matches(matcher, *info, index.holder(pid))) {
                const bool unknown_gpu = matches_but_unknown_gpu(matcher, *info, index.holder(pid));
                builder.refuse(Refusal{
                    .pid = pid,
                    .argument = std::to_string(pid),
                    .name = info->comm,
                    .kind = unknown_gpu ? RefusalKind::gpu_unknown : RefusalKind::not_found,
                    .why = unknown_gpu
                               ? unknown_gpu_reason(*info, *selectors.gpu)
                               : "PID " + std::to_string(pid) + " (" + info->comm +
                                     ") does not match " + describe_match_selectors(selectors),
                    .explicitly_named = true});
                continue;
            }
        }
        builder.consider(pid, TargetReason::named_pid, "named with --pid", true);
    }
}

// Every GPU holder in the snapshot matching all selectors; one that matches all but --gpu N
// because it only may be on GPU N (any_amd_gpu) is refused as gpu_unknown. A holder the process
// table cannot identify (exited, or never readable) is matched on what the snapshot saw and then
// refused by the builder as not found: reported, never signalled.
void add_matched(const Snapshot& snapshot, const Selectors& selectors, const Matcher& matcher,
                 const ProcessIndex& index, PlanBuilder& builder) {
    const std::string detail = "matched " + describe_match_selectors(selectors);
    for (const SnapshotProcess& process : snapshot.processes) {
        const pid_t pid = process.info.pid;
        // An observer holds device files but no context: no selector makes it a target
        // (--pid names it, when that is really meant).
        if (builder.decided(pid) || process.observer()) continue;
        const ProcessInfo* known = index.info(pid);
        const ProcessInfo& seen = process.info_complete || known == nullptr ? process.info : *known;
        if (matches(matcher, seen, &process)) {
            builder.consider(pid, TargetReason::selector_match, detail, false);
        } else if (matches_but_unknown_gpu(matcher, seen, &process)) {
            // Said in the plan, so `kill --gpu N` never passes over it silently either.
            builder.refuse(Refusal{.pid = pid,
                                   .name = seen.comm,
                                   .kind = RefusalKind::gpu_unknown,
                                   .why = unknown_gpu_reason(seen, *selectors.gpu)});
        }
    }
}

}  // namespace

bool Selectors::has_match_selector() const {
    return gpu || filter || user || container || slurm_job || pod_namespace || pod || image ||
           not_image || min_memory_bytes || orphaned || unlisted;
}

Result<KillPlan> build_kill_plan(const Snapshot& snapshot, const ProcessTable& processes,
                                 const Selectors& selectors, const SafetyContext& safety) {
    auto matcher = compile_matcher(selectors, snapshot);
    if (!matcher) return std::unexpected(matcher.error());

    const ProcessIndex index(snapshot, processes);
    PlanBuilder builder(index, safety, !selectors.any_process);
    const std::vector<pid_t> named = parse_named(selectors, safety, builder);

    if (!selectors.pid_arguments.empty()) {
        add_named(named, selectors, *matcher, index, builder);
    } else if (selectors.has_match_selector()) {
        add_matched(snapshot, selectors, *matcher, index, builder);
    }
    expand_targets(builder, index, selectors, safety);

    KillPlan plan = std::move(builder).finish();
    // Named PIDs cap what a selector can reach, so only a selector alone needs --batch.
    plan.needs_batch_confirmation =
        selectors.has_match_selector() && selectors.pid_arguments.empty() && !selectors.batch;
    fill_gpu_memory(plan, snapshot);
    return plan;
}

}  // namespace gpukill::reclaim
