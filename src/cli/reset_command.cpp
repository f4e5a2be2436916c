// `gpukill reset`: preflight -> (reclaim holders with --force) -> vendor reset -> verify.
// The steps live in src/reclaim (reset_plan, reset_facts, reset_exec, reset_verify) and
// the reclaim engine; this file sequences them, audits each step and renders the report.
#include "cli/reset_command.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "backends/registry.hpp"
#include "cli/diagnostics.hpp"
#include "cli/exit_codes.hpp"
#include "cli/reset_audit.hpp"
#include "cli/reset_exit.hpp"
#include "cli/reset_report.hpp"
#include "config/protected_list_file.hpp"
#include "discovery/discover.hpp"
#include "discovery/gpu_selector.hpp"
#include "host/process_table.hpp"
#include "model/json_text.hpp"
#include "reclaim/act_and_verify.hpp"
#include "reclaim/execute.hpp"
#include "reclaim/reset_exec.hpp"
#include "reclaim/reset_facts.hpp"
#include "reclaim/reset_plan.hpp"
#include "reclaim/reset_verify.hpp"
#include "reclaim/safety_context.hpp"
#include "reclaim/select.hpp"

namespace gpukill::cli {
namespace {

std::optional<std::string> environment(const char* name) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
}

// `--gpu 0,1` (nvidia-smi -i's list form): each entry an index, UUID or bus id.
Result<std::vector<unsigned>> resolve_gpu_list(const std::string& list,
                                               const std::vector<Gpu>& gpus) {
    std::vector<unsigned> indices;
    std::string_view rest = list;
    while (true) {
        const std::size_t comma = rest.find(',');
        auto index = resolve_gpu_selector(rest.substr(0, comma), gpus);
        if (!index) return std::unexpected(index.error());
        indices.push_back(*index);
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
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
    std::vector<pid_t> pids;
    for (const SnapshotProcess& process : now.processes) {
        for (const ProcessGpuUse& use : process.gpus) {
            if (gpus.contains(use.gpu_index)) {
                pids.push_back(process.info.pid);
                break;
            }
        }
    }
    return pids;
}

// The holders as named targets of the reclaim engine: it binds each to its identity,
// adds their workers holding the same GPUs, and refuses what must never be signalled.
Result<reclaim::KillPlan> reclaim_plan_for(const reclaim::ResetPlan& plan, const Snapshot& before,
                                           const HostRoots& roots,
                                           const reclaim::ProtectedList& protected_list) {
    auto table = read_process_table(roots);
    if (!table) return std::unexpected(table.error());
    reclaim::SafetyContext safety = reclaim::gather_safety_context(roots, protected_list);
    if (!safety.procfs_is_own_pid_namespace) {
        return fail(
            fmt::format("{} is not this process's PID namespace: its PIDs would name "
                        "other processes here; run gpukill in the host PID namespace",
                        roots.procfs));
    }
    reclaim::Selectors selectors;
    for (const reclaim::ResetHolder& holder : plan.holders) {
        selectors.pid_arguments.push_back(std::to_string(holder.pid));
    }
    auto kill_plan = reclaim::build_kill_plan(before, *table, selectors, safety);
    if (!kill_plan) return kill_plan;
    for (reclaim::PlannedTarget& target : kill_plan->targets) {
        if (target.reason == reclaim::TargetReason::named_pid) {
            target.reason_detail =
                fmt::format("holds GPU {} (being reset)", fmt::join(target.gpus, ","));
        }
    }
    return kill_plan;
}

void print_report(const ResetReport& report, bool json) {
    if (json) {
        fmt::print("{}\n", json_text(reset_report_json(report)));
    } else {
        std::fputs(render_reset_report(report).c_str(), stdout);
    }
    std::fflush(stdout);
}

}  // namespace

int run_reset(const GlobalOptions& global, const ResetOptions& options,
              const std::vector<std::string>& argv) {
    if (options.all && options.gpu) return usage_error("give --gpu or --all, not both");
    if (!options.all && !options.gpu) {
        return usage_error("reset needs its GPUs: --gpu G (or G,H,...) or --all");
    }
    if (!(options.timeout_seconds >= 0 && options.timeout_seconds <= 3600)) {
        return usage_error("--timeout-secs must be between 0 and 3600");
    }
    if (!(options.verify_timeout_seconds >= 0 && options.verify_timeout_seconds <= 3600)) {
        return usage_error("--verify-timeout must be between 0 and 3600");
    }
    auto protected_list = config::load_protected_list(global.config_dir);
    if (!protected_list) {
        fmt::print(stderr, "gpukill: {}\n", protected_list.error().what);
        return protected_list.error().errno_value != 0 ? exit_code::failure
                                                       : exit_code::invalid_arguments;
    }

    const BackendConfig backend_settings = backend_config(global);
    auto backends = open_backends(backend_settings, std::nullopt);
    if (auto failure = requested_backend_failure(backends)) {
        fmt::print(stderr, "gpukill: {}\n", *failure);
        return exit_code::failure;
    }
    Snapshot before = discover(global.roots, backends);
    reclaim::ResetRequest request{.gpus = {}, .all = options.all, .force = options.force};
    if (options.gpu) {
        auto indices = resolve_gpu_list(*options.gpu, before.gpus);
        if (!indices) return usage_error(indices.error().what);
        request.gpus = std::move(*indices);
    }
    const reclaim::ResetFacts facts = reclaim::gather_reset_facts(
        before, global.roots,
        {.nvidia_smi = options.nvidia_smi ? options.nvidia_smi : environment("GPUKILL_NVIDIA_SMI"),
         .path_env = environment("PATH")});
    const reclaim::ResetPlan plan = reclaim::build_reset_plan(before, request, facts);

    ResetAudit audit(global.state_dir, argv);
    audit.planned(plan, options.dry_run);
    ResetReport report{
        .plan = &plan, .dry_run = options.dry_run, .timeout_seconds = options.timeout_seconds};
    auto finish = [&](int code) {
        report.exit_code = code;
        print_report(report, options.json);
        if (!audit.ok()) fmt::print(stderr, "gpukill: warning: {}\n", audit.problem());
        return code;
    };
    auto stop = [&](const std::string& why, std::vector<pid_t> holders) {
        report.stopped = why;
        report.still_holding = holders;
        audit.refused(plan, why, holders);
        return finish(reset_exit::held);
    };

    if (plan.decision == reclaim::ResetDecision::held ||
        plan.decision == reclaim::ResetDecision::refused) {
        audit.refused(plan, plan.why, holder_pids(plan.holders));
        return finish(blocked_plan_exit_code(plan.block));
    }
    if (plan.gpus.empty()) return finish(exit_code::ok);

    std::optional<reclaim::KillPlan> kill_plan;
    if (plan.decision == reclaim::ResetDecision::reclaim_then_reset) {
        auto built = reclaim_plan_for(plan, before, global.roots, *protected_list);
        if (!built) {
            fmt::print(stderr, "gpukill: {}\n", built.error().what);
            return exit_code::failure;
        }
        kill_plan = std::move(*built);
        report.reclaim_plan = &*kill_plan;
        audit.reclaim_planned(*kill_plan);
        if (kill_plan->aborted()) {
            const reclaim::Refusal* first = nullptr;
            for (const reclaim::Refusal& refusal : kill_plan->refusals) {
                if (refusal.explicitly_named && first == nullptr) first = &refusal;
            }
            return stop(fmt::format("PID {} holds the GPU and will not be signalled: {}",
                                    first != nullptr ? first->pid : 0,
                                    first != nullptr ? first->why : "refused"),
                        holder_pids(plan.holders));
        }
    }
    if (options.dry_run) return finish(exit_code::ok);

    std::vector<reclaim::TargetResult> reclaimed;
    if (kill_plan) {
        // The same act-and-verify path as kill. The verification takes one reading, no
        // waiting: memory a reset is for does not come back by waiting, and the record
        // shows what ending the holders alone gave back before the reset.
        const reclaim::ActOptions act{
            .execute = {.first_signal = SIGTERM,
                        .timeout_seconds = options.timeout_seconds,
                        .force = true,
                        .kill_timeout_seconds =
                            options.timeout_seconds > 0 ? options.timeout_seconds : 1},
            .verify = {.timeout_seconds = 0}};
        reclaim::ActOutcome done = reclaim::act_and_verify(
            *kill_plan, global.roots, act,
            {.gpus = [&] { return discover_gpus(backends); },
             .full = [&] { return discover(global.roots, backends); }},
            {.executed = [&](const auto& executed) { audit.reclaim_executed(executed); },
             .verified = [&](const auto& releases) { audit.reclaim_verified(releases); }});
        reclaimed = std::move(done.executed.targets);
        report.reclaim_results = &reclaimed;
        std::vector<pid_t> survivors;
        for (const reclaim::TargetResult& result : reclaimed) {
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
        if (auto still = holding_now(plan, discover(global.roots, backends)); !still.empty()) {
            return stop(fmt::format("still held after reclaiming, by PID {}: nothing was reset",
                                    fmt::join(still, ", ")),
                        still);
        }
    }

    // NVML keeps every GPU's device file open while initialised, and nvidia-smi refuses
    // to reset a GPU anyone has open: gpukill lets go of the driver for the reset.
    backends.clear();
    std::vector<reclaim::ResetAttempt> attempts;
    for (const std::vector<unsigned>& group : plan.groups) {
        attempts.push_back(reclaim::reset_group(plan, group, facts.nvidia_smi));
    }
    report.attempts = &attempts;
    backends = open_backends(backend_settings, std::nullopt);

    std::vector<reclaim::ResetGpu> reset_ok;
    for (const reclaim::ResetAttempt& attempt : attempts) {
        if (attempt.status.failure != reclaim::ResetFailure::none) continue;
        for (const reclaim::ResetGpu& gpu : plan.gpus) {
            if (std::find(attempt.gpus.begin(), attempt.gpus.end(), gpu.index) !=
                attempt.gpus.end()) {
                reset_ok.push_back(gpu);
            }
        }
    }
    std::vector<reclaim::ResetCheck> checks;
    if (!reset_ok.empty()) {
        checks = reclaim::verify_reset(
            reset_ok, [&] { return discover(global.roots, backends); },
            reclaim::ResetVerifyOptions{.timeout_seconds = options.verify_timeout_seconds});
    }
    report.checks = &checks;
    for (const reclaim::ResetGpu& gpu : plan.gpus) {
        for (const reclaim::ResetAttempt& attempt : attempts) {
            if (std::find(attempt.gpus.begin(), attempt.gpus.end(), gpu.index) ==
                attempt.gpus.end()) {
                continue;
            }
            std::optional<reclaim::ResetCheck> check;
            for (const reclaim::ResetCheck& candidate : checks) {
                if (candidate.gpu == gpu.index) check = candidate;
            }
            audit.result(gpu, attempt, check);
        }
    }
    return finish(reset_outcome_exit_code(attempts, checks));
}

}  // namespace gpukill::cli
