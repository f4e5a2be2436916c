// The monitor's actions, each through the engine: plan (identity-bound, the same
// refusals as `gpukill kill`), confirm in a dialog naming every target, execute, show
// per GPU whether the memory came back; the reset of a GPU a kill left soft-locked,
// after its preflight; the detail and environment views.
#include <fmt/format.h>

#include <algorithm>

#include "engine/kill.hpp"
#include "engine/process_details.hpp"
#include "engine/reset.hpp"
#include "sys/interrupt.hpp"
#include "top/action_text.hpp"
#include "top/details_text.hpp"
#include "top/monitor_state.hpp"

namespace gpukill::top {
namespace {

// Waits a top action allows: short, since the screen waits with it.
constexpr double kActionTimeoutSeconds = 5;
constexpr double kActionVerifySeconds = 10;

const Row* actions_highlighted(const ViewState& view, const std::vector<Row>& visible) {
    return view.cursor < visible.size() ? &visible[view.cursor] : nullptr;
}

}  // namespace

bool Monitor::refuse_if_readonly() {
    if (!options_.readonly) return false;
    status_ = "read-only (--readonly): signals and resets are off";
    return true;
}

void Monitor::plan_signal(const char* signal) {
    if (refuse_if_readonly()) return;
    ActionTargets targets = action_targets(view_, rows_, visible_);
    if (targets.rows.empty()) {
        status_ = targets.refused.empty()
                      ? "no process highlighted"
                      : "cannot signal: " + targets.refused.front().not_actionable_reason;
        return;
    }
    std::vector<std::string> pids;
    for (const Row& row : targets.rows) pids.push_back(std::to_string(row.identity.pid));
    engine::KillRequest request;
    request.pids = pids;
    request.signal = signal;
    request.timeout_seconds = kActionTimeoutSeconds;
    request.verify_timeout_seconds = kActionVerifySeconds;
    request.command = fmt::format("top: {} {}", signal, fmt::join(pids, " "));
    auto planned = engine::plan_kill(engine_, request, actor_);
    if (!planned) {
        status_ = "cannot plan: " + planned.error().what;
        return;
    }
    // The plan binds each PID now; the rows were read up to an interval ago. A PID that
    // names another process than the one shown is never signalled.
    for (const Row& row : targets.rows) {
        for (const reclaim::PlannedTarget& target : planned->plan.targets) {
            if (target.identity.pid == row.identity.pid && !(target.identity == row.identity)) {
                status_ = fmt::format("PID {} is another process than the one shown: nothing sent",
                                      row.identity.pid);
                return;
            }
        }
    }
    const bool nothing = planned->plan.targets.empty() || planned->plan.aborted();
    std::vector<std::string> lines = confirmation_lines(*planned, targets.refused);
    if (planned->plan.aborted())
        lines.push_back("A named process was refused: nothing will be sent.");
    planned_ = std::move(*planned);
    open_overlay(nothing ? Mode::result : Mode::confirm_kill,
                 {.title = signal,
                  .lines = std::move(lines),
                  .keys = nothing ? "any key closes" : "y send   n cancel",
                  .scroll = 0});
}

void Monitor::execute_signal() {
    if (!planned_) return close_overlay();
    const engine::KillOutcome plan = *planned_;
    overlay_.reset();
    status_ = fmt::format("sending {} ...", plan.first_signal_name);
    draw();
    engine::ActControls controls{.progress =
                                     [&](std::size_t left, double seconds) {
                                         status_ = fmt::format(
                                             "waiting for {} process{} to exit ({:.1f} s left)",
                                             left, left == 1 ? "" : "es", seconds);
                                         draw();
                                     },
                                 .interrupted = [] { return InterruptCatcher::caught(); },
                                 .executed =
                                     [&] {
                                         status_ = "checking that the memory came back ...";
                                         draw();
                                     }};
    const engine::KillOutcome outcome = engine::execute_kill(engine_, plan, actor_, controls);
    soft_locked_ = soft_locked_gpus(outcome);
    view_.tags.clear();
    status_.clear();
    std::vector<std::string> lines = kill_summary_lines(outcome);
    if (lines.empty()) lines.push_back("nothing was signalled");
    open_overlay(Mode::result,
                 {.title = plan.first_signal_name + " done",
                  .lines = std::move(lines),
                  .keys = soft_locked_.empty() ? "any key closes"
                                               : "R reset (preflight first)   any other key closes",
                  .scroll = 0});
    planned_.reset();
    refresh();
}

void Monitor::offer_reset() {
    if (refuse_if_readonly()) return;
    const std::string gpus = fmt::format("{}", fmt::join(soft_locked_, ","));
    engine::ResetRequest request{.gpus = gpus,
                                 .all = false,
                                 .force = false,
                                 .timeout_seconds = kActionTimeoutSeconds,
                                 .verify_timeout_seconds = kActionVerifySeconds,
                                 .dry_run = true,
                                 .nvidia_smi = std::nullopt,
                                 .command = "top: reset GPU " + gpus + " (preflight)",
                                 .expected_plan_id = std::nullopt};
    auto preview = engine::reset(engine_, request, actor_);
    if (!preview) {
        close_overlay();
        status_ = "reset preflight failed: " + preview.error().what;
        return;
    }
    const bool can_reset = preview->plan.decision == reclaim::ResetDecision::reset;
    std::vector<std::string> lines = reset_preflight_lines(*preview);
    reset_preview_ = std::move(*preview);
    open_overlay(can_reset ? Mode::confirm_reset : Mode::result,
                 {.title = "Reset GPU " + gpus,
                  .lines = std::move(lines),
                  .keys = can_reset ? "y reset   n cancel" : "any key closes",
                  .scroll = 0});
}

void Monitor::execute_reset() {
    if (!reset_preview_) return close_overlay();
    const std::string gpus = fmt::format("{}", fmt::join(soft_locked_, ","));
    engine::ResetRequest request{.gpus = gpus,
                                 .all = false,
                                 .force = false,
                                 .timeout_seconds = kActionTimeoutSeconds,
                                 .verify_timeout_seconds = kActionVerifySeconds,
                                 .dry_run = false,
                                 .nvidia_smi = std::nullopt,
                                 .command = "top: reset GPU " + gpus,
                                 .expected_plan_id = reset_preview_->plan_id};
    overlay_.reset();
    status_ = "resetting GPU " + gpus + " ...";
    draw();
    auto outcome = engine::reset(engine_, request, actor_);
    reset_preview_.reset();
    status_.clear();
    std::vector<std::string> lines =
        outcome ? reset_summary_lines(*outcome)
                : std::vector<std::string>{"not reset: " + outcome.error().what};
    if (outcome) soft_locked_.clear();
    open_overlay(Mode::result, {.title = "Reset GPU " + gpus,
                                .lines = std::move(lines),
                                .keys = "any key closes",
                                .scroll = 0});
    refresh();
}

void Monitor::show_details() {
    const Row* row = actions_highlighted(view_, visible_);
    if (row == nullptr) {
        status_ = "no process highlighted";
        return;
    }
    if (row->kind == RowKind::unaccounted) {
        open_overlay(Mode::text,
                     {.title = fmt::format("GPU {}: memory nobody accounts for", row->gpu),
                      .lines = {row->command,
                                "No listed process and no holder of its device file accounts for "
                                "this memory.",
                                "If no process holds the GPU at all, only a reset frees it "
                                "(gpukill reset)."},
                      .keys = "any key closes",
                      .scroll = 0});
        return;
    }
    auto details = engine::process_details(engine_, row->identity, snapshot_);
    if (!details) {
        status_ = details.error().what;
        return;
    }
    const SnapshotProcess* holder = nullptr;
    for (const SnapshotProcess& process : snapshot_.processes) {
        if (process.info.identity() == row->identity) holder = &process;
    }
    open_overlay(Mode::text, {.title = fmt::format("PID {} {}", row->identity.pid, row->name),
                              .lines = details_lines(*details, holder, snapshot_.devfs),
                              .keys = "any key closes",
                              .scroll = 0});
}

void Monitor::show_environment() {
    const Row* row = actions_highlighted(view_, visible_);
    if (row == nullptr || row->kind != RowKind::process) {
        status_ = "no process highlighted";
        return;
    }
    auto environment = engine::process_environment(engine_, row->identity);
    if (!environment) {
        status_ =
            fmt::format("environment of PID {}: {}", row->identity.pid, environment.error().what);
        return;
    }
    open_overlay(Mode::text, {.title = fmt::format("PID {} environment", row->identity.pid),
                              .lines = environment_lines(*environment),
                              .keys = "any key closes",
                              .scroll = 0});
}

}  // namespace gpukill::top
