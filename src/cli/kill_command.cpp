#include "cli/kill_command.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <cstdio>

#include "backends/registry.hpp"
#include "cli/diagnostics.hpp"
#include "cli/exit_codes.hpp"
#include "cli/kill_audit.hpp"
#include "cli/kill_exit.hpp"
#include "cli/kill_report.hpp"
#include "config/protected_list_file.hpp"
#include "discovery/discover.hpp"
#include "discovery/gpu_selector.hpp"
#include "host/interrupt.hpp"
#include "host/process_table.hpp"
#include "model/byte_size.hpp"
#include "model/json_text.hpp"
#include "reclaim/act_and_verify.hpp"
#include "reclaim/safety_context.hpp"
#include "reclaim/select.hpp"

namespace gpukill::cli {
namespace {

// Live progress on a terminal only: scripts and --json get none of it.
std::function<void(std::size_t, double)> terminal_progress(bool enabled, bool force) {
    if (!enabled) return {};
    return [force](std::size_t left, double seconds) {
        fmt::print(stderr, "\r\x1b[Kwaiting for {} target{} to exit ({:.1f} s left{})", left,
                   left == 1 ? "" : "s", seconds, force ? ", then SIGKILL" : "");
        std::fflush(stderr);
    };
}

void print_report(const KillReport& report, bool json) {
    if (json) {
        fmt::print("{}\n", json_text(kill_report_json(report)));
    } else {
        std::fputs(render_kill_report(report).c_str(), stdout);
    }
}

}  // namespace

int run_kill(const GlobalOptions& global, const KillOptions& options,
             const std::vector<std::string>& argv) {
    auto first_signal = reclaim::parse_signal_name(options.signal);
    if (!first_signal) return usage_error(first_signal.error().what);
    if (!(options.timeout_seconds >= 0 && options.timeout_seconds <= 3600)) {
        return usage_error("--timeout-secs must be between 0 and 3600");
    }
    if (!(options.verify_timeout_seconds >= 0 && options.verify_timeout_seconds <= 3600)) {
        return usage_error("--verify-timeout must be between 0 and 3600");
    }
    reclaim::Selectors selectors;
    selectors.pid_arguments = options.pids;
    selectors.filter = options.filter;
    selectors.user = options.user;
    selectors.container = options.container;
    selectors.orphaned = options.orphaned;
    selectors.unlisted = options.unlisted;
    selectors.tree = options.tree;
    selectors.group = options.group;
    selectors.batch = options.batch;
    if (options.min_memory) {
        auto bytes = parse_byte_size(*options.min_memory);
        if (!bytes) return usage_error("--min-memory: " + bytes.error().what);
        selectors.min_memory_bytes = *bytes;
    }
    if (selectors.pid_arguments.empty() && !selectors.has_match_selector() && !options.gpu) {
        return usage_error("kill needs a target: --pid P, a PID, or a selector such as --gpu G");
    }

    auto protected_list = config::load_protected_list(global.config_dir);
    if (!protected_list) {
        // A malformed file is a usage error; one that cannot be read is a failure.
        if (protected_list.error().errno_value != 0) {
            fmt::print(stderr, "gpukill: {}\n", protected_list.error().what);
            return exit_code::failure;
        }
        return usage_error(protected_list.error().what);
    }

    auto backends = open_backends(backend_config(global), std::nullopt);
    if (auto failure = requested_backend_failure(backends)) {
        fmt::print(stderr, "gpukill: {}\n", *failure);
        return exit_code::failure;
    }
    Snapshot before = discover(global.roots, backends);
    if (options.gpu) {
        auto index = resolve_gpu_selector(*options.gpu, before.gpus);
        if (!index) return usage_error(index.error().what);
        selectors.gpu = *index;
    }
    auto table = read_process_table(global.roots);
    if (!table) {
        fmt::print(stderr, "gpukill: {}\n", table.error().what);
        return exit_code::failure;
    }
    reclaim::SafetyContext safety = reclaim::gather_safety_context(global.roots, *protected_list);
    if (!safety.procfs_is_own_pid_namespace) {
        fmt::print(stderr,
                   "gpukill: {} is not this process's PID namespace ({}/self is not PID {}): "
                   "its PIDs would name other processes here; run gpukill in the host PID "
                   "namespace (e.g. hostPID: true) to kill\n",
                   global.roots.procfs, global.roots.procfs, getpid());
        return exit_code::unsupported;
    }
    auto plan = reclaim::build_kill_plan(before, *table, selectors, safety);
    if (!plan) return usage_error(plan.error().what);

    // From the plan's record on, Ctrl-C (or SIGTERM) stops waiting and escalating but
    // not the records: what was sent is in the audit log before gpukill exits.
    const InterruptCatcher interrupt;
    KillAudit audit(global.state_dir, argv);
    audit.planned(*plan);

    KillReport report{.plan = &*plan,
                      .dry_run = options.dry_run,
                      .preview = plan->needs_batch_confirmation,
                      .first_signal = reclaim::signal_name(*first_signal),
                      .force = options.force,
                      .timeout_seconds = options.timeout_seconds};
    if (plan->aborted()) {
        report.exit_code = aborted_plan_exit_code(*plan);
        print_report(report, options.json);
        return report.exit_code;
    }
    if (options.dry_run || plan->needs_batch_confirmation || plan->targets.empty()) {
        report.exit_code = plan->needs_batch_confirmation && !options.dry_run
                               ? kill_exit::preview_only
                           : options.dry_run ? exit_code::ok
                                             : executed_plan_exit_code(*plan, {}, {});
        print_report(report, options.json);
        return report.exit_code;
    }

    if (InterruptCatcher::caught()) {  // before any signal: send none
        fmt::print(stderr, "gpukill: interrupted before any signal was sent\n");
        return exit_code::interrupted;
    }
    const bool show_progress = !options.json && isatty(STDERR_FILENO) == 1;
    const reclaim::ActOptions act{
        .execute = {.first_signal = *first_signal,
                    .timeout_seconds = options.timeout_seconds,
                    .force = options.force,
                    .kill_timeout_seconds =
                        options.timeout_seconds > 0 ? options.timeout_seconds : 1,
                    .progress = terminal_progress(show_progress, options.force),
                    .interrupted = [] { return InterruptCatcher::caught(); }},
        .verify = {.timeout_seconds = options.verify_timeout_seconds}};
    reclaim::ActOutcome done = reclaim::act_and_verify(
        *plan, global.roots, act,
        {.gpus = [&] { return discover_gpus(backends); },
         .full = [&] { return discover(global.roots, backends); }},
        {.executed =
             [&](const reclaim::ExecuteResult& executed) {
                 if (show_progress) fmt::print(stderr, "\r\x1b[K");
                 audit.executed(executed);
             },
         .verified = [&](const auto& releases) { audit.verified(releases); }});
    report.results = &done.executed.targets;
    report.releases = &done.releases;
    if (done.interrupted) {
        report.exit_code = exit_code::interrupted;
        print_report(report, options.json);
        fmt::print(stderr, "gpukill: interrupted; the signals sent are in the audit log\n");
        return report.exit_code;
    }
    report.exit_code = executed_plan_exit_code(*plan, done.executed.targets, done.releases);
    print_report(report, options.json);
    if (!audit.ok()) fmt::print(stderr, "gpukill: warning: {}\n", audit.problem());
    return report.exit_code;
}

}  // namespace gpukill::cli
