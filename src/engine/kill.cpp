#include "engine/kill.hpp"
#include "engine/engine_state.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <cstring>

#include "audit/reclaim_records.hpp"
#include "discovery/gpu_selector.hpp"
#include "engine/act_records.hpp"
#include "engine/kill_codes.hpp"
#include "engine/outcome_codes.hpp"
#include "engine/plan_identity.hpp"
#include "engine/plan_selectors.hpp"
#include "host/proc_reader.hpp"
#include "host/process_table.hpp"
#include "reclaim/act_and_verify.hpp"
#include "reclaim/safety_context.hpp"
#include "reclaim/system_program.hpp"

namespace gpukill::engine {
namespace {

struct PlanInputs {
    Snapshot snapshot;
    std::vector<ProcessInfo> table;
};

// The PIDs among the --pid arguments as typed, read by the plan's own gate; the others
// are refused by the plan.
std::vector<pid_t> named_pids(const std::vector<std::string>& arguments, pid_t pid_max) {
    std::vector<pid_t> pids;
    for (const std::string& argument : arguments) {
        if (auto pid = reclaim::parse_target_pid(argument, pid_max)) pids.push_back(*pid);
    }
    return pids;
}

// A --pid naming a thread rather than a process is refused before anything is planned:
// kill(2) with a thread's id signals its whole process, and a pidfd cannot be opened for
// it, so the plan would either reach more than was named or fail at the signal. The
// kernel's Tgid says which process a thread belongs to.
Result<void> refuse_thread_ids(const HostRoots& roots, const std::vector<std::string>& arguments,
                               pid_t pid_max) {
    for (pid_t pid : named_pids(arguments, pid_max)) {
        auto group = read_thread_group(roots, pid);
        if (group && *group != pid) {
            return fail(ErrorCategory::invalid_input,
                        fmt::format("PID {} is a thread of process {}, not a process: name the "
                                    "process (--pid {})",
                                    pid, *group, *group));
        }
    }
    return {};
}

// What the plan is built from. A kill of named PIDs alone reads those processes, their
// descendants and what they hold, so it costs the same on a node with thousands of
// processes as on an idle one: nothing the plan looks at lies outside that family
// (targets, their workers, --tree; safety reads gpukill's own ancestors itself). A
// selector, --gpu or --group must look at every process, and sweeps the host.
Result<PlanInputs> plan_inputs(Engine& engine, const reclaim::Selectors& selectors, bool gpu_given,
                               pid_t pid_max) {
    const HostRoots& roots = engine.config().roots;
    if (!selectors.has_match_selector() && !gpu_given && !selectors.group) {
        PlanInputs inputs;
        inputs.table = read_process_family(roots, named_pids(selectors.pid_arguments, pid_max));
        std::vector<pid_t> family;
        family.reserve(inputs.table.size());
        for (const ProcessInfo& info : inputs.table) family.push_back(info.pid);
        inputs.snapshot = family_snapshot(engine, family);
        return inputs;
    }
    PlanInputs inputs{.snapshot = host_snapshot(engine), .table = {}};
    auto table = read_process_table(roots);
    if (!table) return std::unexpected(as(ErrorCategory::unavailable, table.error()));
    inputs.table = std::move(*table);
    return inputs;
}

}  // namespace

bool valid_timeout_seconds(double seconds) {
    return seconds >= 0 && seconds <= 3600;
}

std::string plan_id(const reclaim::KillPlan& plan, int first_signal, bool force,
                    double timeout_seconds) {
    PlanIdentity identity;
    identity.add(static_cast<std::uint64_t>(first_signal))
        .add(force)
        .add(static_cast<std::uint64_t>(timeout_seconds * 1000))
        .add(plan.needs_batch_confirmation);
    for (const reclaim::PlannedTarget& target : plan.targets) {
        identity.add(static_cast<std::uint64_t>(target.identity.pid))
            .add(target.identity.start_time_ticks);
    }
    return identity.hex();
}

KillReport KillOutcome::report() const {
    return KillReport{.plan = &plan,
                      .dry_run = dry_run,
                      .preview = preview,
                      .first_signal = first_signal_name,
                      .force = force,
                      .timeout_seconds = timeout_seconds,
                      .results = results ? &*results : nullptr,
                      .releases = releases ? &*releases : nullptr,
                      .exit_code = code,
                      .plan_id = plan_id};
}

Result<KillOutcome> plan_kill(Engine& engine, const KillRequest& request, const Actor& actor) {
    auto first_signal = reclaim::parse_signal_name(request.signal);
    if (!first_signal) return std::unexpected(first_signal.error());
    if (!valid_timeout_seconds(request.timeout_seconds)) {
        return fail(ErrorCategory::invalid_input, "--timeout-secs must be between 0 and 3600");
    }
    if (!valid_timeout_seconds(request.verify_timeout_seconds)) {
        return fail(ErrorCategory::invalid_input, "--verify-timeout must be between 0 and 3600");
    }
    reclaim::Selectors selectors = plan_selectors(request);
    if (selectors.pid_arguments.empty() && !selectors.has_match_selector() && !request.gpu) {
        return fail(ErrorCategory::invalid_input,
                    "kill needs a target: --pid P, a PID, or a selector such as --gpu G");
    }
    const EngineConfig& config = engine.config();
    auto protected_list = load_protected_list(engine);
    if (!protected_list) return std::unexpected(protected_list.error());

    reclaim::SafetyContext safety = reclaim::gather_safety_context(config.roots, *protected_list);
    if (auto threads = refuse_thread_ids(config.roots, selectors.pid_arguments, safety.pid_max);
        !threads) {
        return std::unexpected(threads.error());
    }
    auto inputs = plan_inputs(engine, selectors, request.gpu.has_value(), safety.pid_max);
    if (!inputs) return std::unexpected(inputs.error());
    Snapshot& before = inputs->snapshot;
    if (request.gpu) {
        auto index = resolve_gpu_selector(*request.gpu, before.gpus);
        if (!index) return std::unexpected(as(ErrorCategory::not_found, index.error()));
        selectors.gpu = *index;
    }
    const std::vector<ProcessInfo>* table = &inputs->table;
    if (!safety.procfs_is_own_pid_namespace) {
        return fail(ErrorCategory::unsupported,
                    fmt::format("{} is not this process's PID namespace ({}/self is not PID {}): "
                                "its PIDs would name other processes here; run gpukill in the "
                                "host PID namespace (e.g. hostPID: true) to kill",
                                config.roots.procfs, config.roots.procfs, getpid()));
    }
    reclaim::find_system_programs(config.roots, before, *table, safety);
    auto plan = reclaim::build_kill_plan(before, *table, selectors, safety);
    if (!plan) return std::unexpected(as(ErrorCategory::invalid_input, plan.error()));

    KillOutcome outcome;
    outcome.plan_id = plan_id(*plan, *first_signal, request.force, request.timeout_seconds);
    if (auto confirmed =
            confirm_shown(engine, "kill", request.expected_plan_id, outcome.plan_id, actor);
        !confirmed) {
        return std::unexpected(confirmed.error());
    }
    AuditTrail trail = start_trail(engine, actor, request.command);
    trail.append_all(audit::plan_records(trail.who(), *plan, trail.now()));

    outcome.plan = std::move(*plan);
    outcome.run_id = trail.who().run_id;
    outcome.command = request.command;
    outcome.first_signal = *first_signal;
    outcome.first_signal_name = reclaim::signal_name(*first_signal);
    outcome.force = request.force;
    outcome.timeout_seconds = request.timeout_seconds;
    outcome.verify_timeout_seconds = request.verify_timeout_seconds;
    outcome.dry_run = request.dry_run;
    outcome.preview = outcome.plan.needs_batch_confirmation;
    outcome.audit_problem = trail.problem();
    if (!request.expected_plan_id) note_shown(engine, "kill", outcome.plan_id, actor);
    if (outcome.plan.aborted()) {
        outcome.code = aborted_plan_exit_code(outcome.plan);
    } else if (outcome.preview && !outcome.dry_run) {
        outcome.code = kill_exit::preview_only;
    } else if (!outcome.dry_run) {
        outcome.code = executed_plan_exit_code(outcome.plan, {}, {});
    }
    return outcome;
}

KillOutcome execute_kill(Engine& engine, const KillOutcome& preview, const Actor& actor,
                         const ActControls& controls) {
    KillOutcome outcome = preview;
    outcome.dry_run = false;
    if (outcome.plan.aborted() || outcome.plan.needs_batch_confirmation ||
        outcome.plan.targets.empty()) {
        return outcome;  // nothing to carry out; the code says why
    }
    if (controls.interrupted && controls.interrupted()) {  // before any signal: send none
        outcome.interrupted = true;
        outcome.code = exit_code::interrupted;
        return outcome;
    }
    // Everything that touches the engine goes through `exclusive`; the waits do not.
    const auto exclusive = [&controls](const std::function<void()>& work) {
        if (controls.engine_access) {
            controls.engine_access(work);
        } else {
            work();
        }
    };
    std::optional<AuditTrail> trail;
    exclusive([&] { trail.emplace(start_trail(engine, actor, preview.command, preview.run_id)); });
    const reclaim::ActOptions act{
        .execute = {.first_signal = outcome.first_signal,
                    .timeout_seconds = outcome.timeout_seconds,
                    .force = outcome.force,
                    .kill_timeout_seconds =
                        outcome.timeout_seconds > 0 ? outcome.timeout_seconds : 1,
                    .progress = controls.progress,
                    .interrupted = controls.interrupted},
        .verify = {.timeout_seconds = outcome.verify_timeout_seconds}};
    const auto read = [&](Snapshot (*reading)(Engine&)) {
        Snapshot snapshot;
        exclusive([&] { snapshot = reading(engine); });
        return snapshot;
    };
    reclaim::ActOutcome done = reclaim::act_and_verify(
        outcome.plan, engine.config().roots, act,
        {.gpus = [&] { return read([](Engine& e) { return e.gpus(); }); },
         .full = [&] { return read([](Engine& e) { return host_snapshot(e); }); }},
        act_recorder(
            trail->who(),
            [&] {
                std::chrono::system_clock::time_point now;
                exclusive([&] { now = trail->now(); });
                return now;
            },
            [&](const std::vector<nlohmann::ordered_json>& records) {
                exclusive([&] { (void)trail->append_all(records); });
            },
            controls.executed));
    outcome.results = std::move(done.executed.targets);
    outcome.releases = std::move(done.releases);
    outcome.interrupted = done.interrupted;
    outcome.code = done.interrupted
                       ? exit_code::interrupted
                       : executed_plan_exit_code(outcome.plan, *outcome.results, *outcome.releases);
    if (!outcome.audit_problem) outcome.audit_problem = trail->problem();
    return outcome;
}

Result<KillOutcome> kill(Engine& engine, const KillRequest& request, const Actor& actor,
                         const ActControls& controls) {
    auto planned = plan_kill(engine, request, actor);
    if (!planned || request.dry_run) return planned;
    return execute_kill(engine, *planned, actor, controls);
}

}  // namespace gpukill::engine
