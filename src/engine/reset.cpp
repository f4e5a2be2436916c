#include "engine/reset.hpp"
#include "engine/engine_state.hpp"

#include <signal.h>

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "audit/reclaim_records.hpp"
#include "audit/reset_records.hpp"
#include "discovery/gpu_selector.hpp"
#include "engine/act_records.hpp"
#include "engine/local_channel.hpp"
#include "engine/outcome_codes.hpp"
#include "engine/plan_identity.hpp"
#include "engine/reset_codes.hpp"
#include "host/process_table.hpp"
#include "reclaim/act_and_verify.hpp"
#include "reclaim/reset_facts.hpp"
#include "reclaim/safety_context.hpp"
#include "reclaim/select.hpp"
#include "reclaim/system_program.hpp"

namespace gpukill::engine {
namespace {

// `--gpu 0,1` (nvidia-smi -i's list form): each entry an index, UUID or bus id.
Result<std::vector<unsigned>> resolve_gpu_list(const std::string& list,
                                               const std::vector<Gpu>& gpus) {
    std::vector<unsigned> indices;
    std::string_view rest = list;
    while (true) {
        const std::size_t comma = rest.find(',');
        auto index = resolve_gpu_selector(rest.substr(0, comma), gpus);
        if (!index) return std::unexpected(as(ErrorCategory::not_found, index.error()));
        indices.push_back(*index);
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    return indices;
}

std::vector<unsigned> plan_gpu_indices(const reclaim::ResetPlan& plan) {
    std::vector<unsigned> indices;
    for (const reclaim::ResetGpu& gpu : plan.gpus) indices.push_back(gpu.index);
    return indices;
}

std::vector<pid_t> holder_pids(const std::vector<reclaim::ResetHolder>& holders) {
    std::vector<pid_t> pids;
    for (const reclaim::ResetHolder& holder : holders) pids.push_back(holder.pid);
    return pids;
}

// Processes tied to any of the plan's GPUs in `now`.
std::vector<pid_t> holding_now(const reclaim::ResetPlan& plan, const Snapshot& now) {
    std::set<unsigned> gpus;
    for (const reclaim::ResetGpu& gpu : plan.gpus) gpus.insert(gpu.index);
    return holder_pids(reclaim::holders_of(now, gpus));
}

// The holders as named targets of the reclaim engine: it binds each to its identity,
// adds their workers holding the same GPUs, and refuses what must never be signalled.
Result<reclaim::KillPlan> reclaim_plan_for(const reclaim::ResetPlan& plan, const Snapshot& before,
                                           const HostRoots& roots,
                                           const reclaim::ProtectedList& protected_list) {
    auto table = read_process_table(roots);
    if (!table) return std::unexpected(as(ErrorCategory::unavailable, table.error()));
    reclaim::SafetyContext safety = reclaim::gather_safety_context(roots, protected_list);
    if (!safety.procfs_is_own_pid_namespace) {
        return fail(ErrorCategory::unsupported,
                    fmt::format("{} is not this process's PID namespace: its PIDs would name "
                                "other processes here; run gpukill in the host PID namespace",
                                roots.procfs));
    }
    reclaim::Selectors selectors;
    for (const reclaim::ResetHolder& holder : plan.holders) {
        selectors.pid_arguments.push_back(std::to_string(holder.pid));
    }
    reclaim::find_system_programs(roots, before, *table, safety);
    auto kill_plan = reclaim::build_kill_plan(before, *table, selectors, safety);
    if (!kill_plan) return std::unexpected(as(ErrorCategory::internal, kill_plan.error()));
    for (reclaim::PlannedTarget& target : kill_plan->targets) {
        if (target.reason == reclaim::TargetReason::named_pid) {
            target.reason_detail =
                fmt::format("holds GPU {} (being reset)", fmt::join(target.gpus, ","));
        }
    }
    return kill_plan;
}

}  // namespace

std::string reset_plan_id(const reclaim::ResetPlan& plan) {
    PlanIdentity identity;
    identity.add(static_cast<std::uint64_t>(plan.decision)).add(plan.force);
    for (const reclaim::ResetGpu& gpu : plan.gpus) {
        identity.add(gpu.index).add(static_cast<std::uint64_t>(gpu.method));
    }
    for (const reclaim::ResetHolder& holder : plan.holders) {
        identity.add(static_cast<std::uint64_t>(holder.pid)).add(holder.start_time_ticks);
    }
    return identity.hex();
}

ResetReport ResetOutcome::report() const {
    return ResetReport{.plan = &plan,
                       .dry_run = dry_run,
                       .timeout_seconds = timeout_seconds,
                       .reclaim_plan = reclaim_plan ? &*reclaim_plan : nullptr,
                       .reclaim_results = reclaim_results ? &*reclaim_results : nullptr,
                       .stopped = stopped,
                       .still_holding = still_holding,
                       .local_agent_pid = local_agent_pid,
                       .attempts = attempts ? &*attempts : nullptr,
                       .checks = attempts ? &checks : nullptr,
                       .exit_code = code,
                       .plan_id = plan_id};
}

Result<ResetOutcome> reset(Engine& engine, const ResetRequest& request, const Actor& actor,
                           const ActControls& controls) {
    if (request.all && request.gpus) {
        return fail(ErrorCategory::invalid_input, "give --gpu or --all, not both");
    }
    if (!request.all && !request.gpus) {
        return fail(ErrorCategory::invalid_input,
                    "reset needs its GPUs: --gpu G (or G,H,...) or --all");
    }
    if (!valid_timeout_seconds(request.timeout_seconds)) {
        return fail(ErrorCategory::invalid_input, "--timeout-secs must be between 0 and 3600");
    }
    if (!valid_timeout_seconds(request.verify_timeout_seconds)) {
        return fail(ErrorCategory::invalid_input, "--verify-timeout must be between 0 and 3600");
    }
    const EngineConfig& config = engine.config();
    auto protected_list = load_protected_list(engine);
    if (!protected_list) return std::unexpected(protected_list.error());

    Snapshot before = host_snapshot(engine);
    reclaim::ResetRequest wanted{.gpus = {}, .all = request.all, .force = request.force};
    if (request.gpus) {
        auto indices = resolve_gpu_list(*request.gpus, before.gpus);
        if (!indices) return std::unexpected(indices.error());
        wanted.gpus = std::move(*indices);
    }
    const reclaim::ResetFacts facts = reclaim::gather_reset_facts(
        before, config.roots,
        {.nvidia_smi = request.nvidia_smi ? request.nvidia_smi : config.nvidia_smi,
         .path_env = config.path_env});

    ResetOutcome outcome;
    outcome.plan = reclaim::build_reset_plan(before, wanted, facts);
    outcome.plan_id = reset_plan_id(outcome.plan);
    if (auto confirmed =
            confirm_shown(engine, "reset", request.expected_plan_id, outcome.plan_id, actor);
        !confirmed) {
        return std::unexpected(confirmed.error());
    }
    if (!request.expected_plan_id) note_shown(engine, "reset", outcome.plan_id, actor);
    outcome.dry_run = request.dry_run;
    outcome.timeout_seconds = request.timeout_seconds;
    const reclaim::ResetPlan& plan = outcome.plan;

    AuditTrail trail = start_trail(engine, actor, request.command);
    const auto record = [&](std::vector<nlohmann::ordered_json> records) {
        trail.append_all(records);
    };
    record({audit::reset_planned_record(trail.who(), plan, request.dry_run, trail.now())});
    const auto finish = [&](int code) {
        outcome.code = code;
        outcome.audit_problem = trail.problem();
        return outcome;
    };
    const auto stop = [&](std::string why, std::vector<pid_t> holders) {
        record({audit::reset_refused_record(trail.who(), plan, why, holders, trail.now())});
        outcome.stopped = std::move(why);
        outcome.still_holding = std::move(holders);
        return finish(reset_exit::held);
    };

    if (plan.decision == reclaim::ResetDecision::held ||
        plan.decision == reclaim::ResetDecision::refused) {
        record({audit::reset_refused_record(trail.who(), plan, plan.why, holder_pids(plan.holders),
                                            trail.now())});
        return finish(blocked_plan_exit_code(plan.block));
    }
    if (plan.gpus.empty()) return finish(exit_code::ok);

    if (plan.decision == reclaim::ResetDecision::reclaim_then_reset) {
        auto built = reclaim_plan_for(plan, before, config.roots, *protected_list);
        if (!built) return std::unexpected(built.error());
        outcome.reclaim_plan = std::move(*built);
        record(audit::plan_records(trail.who(), *outcome.reclaim_plan, trail.now()));
        if (outcome.reclaim_plan->aborted()) {
            const reclaim::Refusal* first = nullptr;
            for (const reclaim::Refusal& refusal : outcome.reclaim_plan->refusals) {
                if (refusal.explicitly_named && first == nullptr) first = &refusal;
            }
            return stop(fmt::format("PID {} holds the GPU and will not be signalled: {}",
                                    first != nullptr ? first->pid : 0,
                                    first != nullptr ? first->why : "refused"),
                        holder_pids(plan.holders));
        }
    }
    if (request.dry_run) return finish(exit_code::ok);

    if (outcome.reclaim_plan) {
        // The same act-and-verify path as kill. The verification takes one reading, no
        // waiting: memory a reset is for does not come back by waiting, and the record
        // shows what ending the holders alone gave back before the reset.
        const reclaim::ActOptions act{
            .execute = {.first_signal = SIGTERM,
                        .timeout_seconds = request.timeout_seconds,
                        .force = true,
                        .kill_timeout_seconds =
                            request.timeout_seconds > 0 ? request.timeout_seconds : 1,
                        .progress = controls.progress,
                        .interrupted = controls.interrupted},
            .verify = {.timeout_seconds = 0}};
        reclaim::ActOutcome done = reclaim::act_and_verify(
            *outcome.reclaim_plan, config.roots, act,
            {.gpus = [&] { return engine.gpus(); }, .full = [&] { return host_snapshot(engine); }},
            act_recorder(
                trail.who(), [&] { return trail.now(); }, record, controls.executed));
        outcome.reclaim_results = std::move(done.executed.targets);
        if (done.interrupted) {
            return stop("interrupted while reclaiming the holders: nothing was reset",
                        holding_now(plan, host_snapshot(engine)));
        }
        std::vector<pid_t> survivors;
        for (const reclaim::TargetResult& result : *outcome.reclaim_results) {
            if (result.outcome == reclaim::Outcome::survived) {
                survivors.push_back(result.target.identity.pid);
            }
        }
        if (!survivors.empty()) {
            return stop(fmt::format("{} holder{} survived SIGKILL: nothing was reset",
                                    survivors.size(), survivors.size() == 1 ? "" : "s"),
                        survivors);
        }
        // Holders the plan could not see coming (started meanwhile) still block the reset.
        if (auto still = holding_now(plan, host_snapshot(engine)); !still.empty()) {
            return stop(fmt::format("still held after reclaiming, by PID {}: nothing was reset",
                                    fmt::join(still, ", ")),
                        still);
        }
    }

    // The local agent keeps NVML open, so it holds every NVIDIA GPU's device file, and
    // NVIDIA's reset refuses a GPU any process has open: it lets go for the reset, and
    // takes its session up again when `agent` is released.
    std::unique_ptr<AgentDriverRelease> agent;
    const bool nvidia = std::any_of(plan.gpus.begin(), plan.gpus.end(),
                                    [](const auto& gpu) { return gpu.vendor == Vendor::nvidia; });
    if (nvidia) {
        auto asked = AgentDriverRelease::ask(
            config.state_dir, kMaxReleaseSeconds,
            fmt::format("{} {} resets GPU {}", to_string(actor.interface), actor.name,
                        fmt::join(plan_gpu_indices(plan), ",")));
        if (!asked) return stop(asked.error().what + ": nothing was reset", {});
        agent = std::move(*asked);
        if (agent) outcome.local_agent_pid = agent->agent_pid();
    }
    outcome.attempts = reset_gpus(engine, plan, facts.nvidia_smi);
    agent.reset();

    std::vector<reclaim::ResetGpu> reset_ok;
    for (const reclaim::ResetAttempt& attempt : *outcome.attempts) {
        if (attempt.status.failure != reclaim::ResetFailure::none) continue;
        for (const reclaim::ResetGpu& gpu : plan.gpus) {
            if (std::find(attempt.gpus.begin(), attempt.gpus.end(), gpu.index) !=
                attempt.gpus.end()) {
                reset_ok.push_back(gpu);
            }
        }
    }
    if (!reset_ok.empty()) {
        outcome.checks = reclaim::verify_reset(
            reset_ok, [&] { return host_snapshot(engine); },
            reclaim::ResetVerifyOptions{.timeout_seconds = request.verify_timeout_seconds});
    }
    for (const reclaim::ResetGpu& gpu : plan.gpus) {
        for (const reclaim::ResetAttempt& attempt : *outcome.attempts) {
            if (std::find(attempt.gpus.begin(), attempt.gpus.end(), gpu.index) ==
                attempt.gpus.end()) {
                continue;
            }
            std::optional<reclaim::ResetCheck> check;
            for (const reclaim::ResetCheck& candidate : outcome.checks) {
                if (candidate.gpu == gpu.index) check = candidate;
            }
            record({audit::reset_result_record(trail.who(), gpu, attempt, check, trail.now())});
        }
    }
    return finish(reset_outcome_exit_code(*outcome.attempts, outcome.checks));
}

}  // namespace gpukill::engine
