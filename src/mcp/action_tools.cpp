// The action tools, listed only with --allow-actions. A kill is two calls: plan_kill
// returns the exact targets (PID, start time, memory) and a plan id, valid for a short
// window; execute_kill_plan carries out that plan by id, building it again and refusing
// (conflict, nothing signalled) when any target changed. A reset is previewed with
// dry_run and executed with the preview's plan_id, the engine's stateless confirmation.
// Every refusal the command line makes (PID 0, 1, -1 or out of range, protected
// processes, gpukill's ancestors) is the plan's own, so it holds here too.
#include <fmt/format.h>

#include "engine/kill.hpp"
#include "engine/request_codec.hpp"
#include "engine/reset.hpp"
#include "engine/reset_report.hpp"
#include "mcp/tools.hpp"

namespace gpukill::mcp {
namespace {

using ojson = nlohmann::ordered_json;

std::int64_t action_unix_ms(std::chrono::system_clock::time_point time) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count();
}

ojson action_property(const char* type, const char* description) {
    return ojson{{"type", type}, {"description", description}};
}

// One line for the refusals that aborted a plan, as the command line prints them.
std::string refusal_reasons(const reclaim::KillPlan& plan) {
    std::string reasons;
    for (const reclaim::Refusal& refusal : plan.refusals) {
        if (!refusal.explicitly_named && !plan.aborted()) continue;
        if (!reasons.empty()) reasons += "; ";
        reasons += refusal.why;
    }
    return reasons.empty() ? "the plan was refused" : "refused: " + reasons;
}

ToolResult run_plan_kill(ToolContext& context, const nlohmann::json& arguments) {
    auto request = engine::request_from_json<engine::KillRequest>(arguments);
    if (!request) return tool_error(request.error().what);
    // The plan is shown to the assistant, and executing it by id is the confirmation a
    // many-process selector needs: the plan shown is the plan carried out.
    request->batch = true;
    request->dry_run = true;
    request->command = context.command;
    auto planned = engine::plan_kill(context.engine, *request, context.actor);
    if (!planned) return tool_error(planned.error().what);
    if (planned->plan.aborted()) return tool_error(refusal_reasons(planned->plan));
    ojson doc = engine::kill_report_json(planned->report());
    doc["plan_id"] = planned->plan_id;
    if (planned->plan.targets.empty()) {
        doc["expires_at_unix_ms"] = nullptr;
        return ToolResult{.structured = std::move(doc),
                          .text = "nothing to kill: no process matches; nothing was planned"};
    }
    request->dry_run = false;
    const auto expires = context.plans.keep(planned->plan_id, *request, context.engine.now());
    doc["expires_at_unix_ms"] = action_unix_ms(expires);
    doc["valid_seconds"] = context.plans.validity().count();
    std::string names;
    for (const reclaim::PlannedTarget& target : planned->plan.targets) {
        names +=
            fmt::format("{}{} ({})", names.empty() ? "" : ", ", target.identity.pid, target.name);
    }
    return ToolResult{
        .structured = std::move(doc),
        .text = fmt::format("plan {}: {} {} target(s): {}; execute it with execute_kill_plan "
                            "within {} seconds",
                            planned->plan_id, planned->first_signal_name,
                            planned->plan.targets.size(), names, context.plans.validity().count())};
}

ToolResult run_execute_kill_plan(ToolContext& context, const nlohmann::json& arguments) {
    const auto found = arguments.find("plan_id");
    if (found == arguments.end() || !found->is_string()) {
        return tool_error("plan_id: required, the id plan_kill returned");
    }
    const std::string plan_id = found->get<std::string>();
    auto request = context.plans.take(plan_id, context.engine.now());
    if (!request) {
        return tool_error(fmt::format(
            "plan {} is unknown or expired (plans are valid {} seconds and run once); plan it "
            "again with plan_kill",
            plan_id, context.plans.validity().count()));
    }
    request->expected_plan_id = plan_id;
    request->dry_run = false;
    request->command = context.command;
    auto outcome =
        engine::kill(context.engine, *request, context.actor, {.interrupted = context.interrupted});
    if (!outcome) return tool_error(outcome.error().what);
    ojson doc = engine::kill_report_json(outcome->report());
    std::string text;
    if (outcome->code == 0) {
        text =
            fmt::format("plan {} executed: every target ended and its memory came back", plan_id);
    } else {
        text = fmt::format(
            "plan {} executed with outcome code {} (README: exit codes); see "
            "targets and gpus",
            plan_id, outcome->code);
    }
    if (outcome->audit_problem) text += "; audit: " + *outcome->audit_problem;
    return ToolResult{
        .structured = std::move(doc), .text = std::move(text), .is_error = outcome->code != 0};
}

ToolResult run_reset_gpu(ToolContext& context, const nlohmann::json& arguments) {
    auto request = engine::request_from_json<engine::ResetRequest>(arguments);
    if (!request) return tool_error(request.error().what);
    if (!request->dry_run && !request->expected_plan_id) {
        return tool_error(
            "a reset needs a preview first: call reset_gpu with dry_run true, then again with "
            "its plan_id");
    }
    request->command = context.command;
    auto outcome = engine::reset(context.engine, *request, context.actor,
                                 {.interrupted = context.interrupted});
    if (!outcome) return tool_error(outcome.error().what);
    ojson doc = engine::reset_report_json(outcome->report());
    const bool failed = !request->dry_run && outcome->code != 0;
    return ToolResult{
        .structured = std::move(doc),
        .text = request->dry_run
                    ? fmt::format("reset plan {}: pass it as plan_id to reset", outcome->plan_id)
                    : fmt::format("reset finished with outcome code {}", outcome->code),
        .is_error = failed};
}

ToolAnnotations destructive(bool idempotent) {
    return ToolAnnotations{
        .read_only = false, .destructive = true, .idempotent = idempotent, .open_world = false};
}

ojson kill_output_schema() {
    return ojson{{"type", "object"},
                 {"properties",
                  {{"schema_version", action_property("integer", "document version")},
                   {"plan_id", action_property("string", "the plan's identity")},
                   {"targets", action_property("array", "the exact processes, PID and start time")},
                   {"exit_code", action_property("integer", "the outcome code (README)")}}},
                 {"required", {"schema_version", "targets", "exit_code"}}};
}

}  // namespace

std::vector<Tool> action_tools() {
    // The plan is a preview by nature, and executing it by id is the confirmation a
    // many-process selector needs: those fields are the tool's own, not the caller's.
    const ojson plan_properties =
        engine::request_schema<engine::KillRequest>({"dry_run", "plan_id", "batch"});

    std::vector<Tool> tools;
    tools.push_back(Tool{
        .name = "plan_kill",
        .title = "Plan a kill",
        .description =
            "Plans stopping GPU processes, by PID or by selectors (all given must match), and "
            "signals nothing: returns the exact targets (PID, start time, name, user, memory), "
            "the refusals, and a plan_id to pass to execute_kill_plan within a short validity "
            "window. PID 0, 1, negative or out-of-range PIDs, gpukill and its ancestors, "
            "kernel threads and protected processes are refused. Example: every container "
            "process on GPU 1 not from an official image: {\"gpu\": 1, \"not_image\": "
            "\"^(docker\\\\.io/)?(library/)?[a-z0-9._-]+(:[^/]*)?$\"}.",
        .input_schema = object_schema(plan_properties),
        .output_schema = kill_output_schema(),
        .annotations =
            ToolAnnotations{
                .read_only = false, .destructive = false, .idempotent = false, .open_world = false},
        .action = true,
        .run = run_plan_kill});
    tools.push_back(Tool{
        .name = "execute_kill_plan",
        .title = "Execute a kill plan",
        .description =
            "Carries out the plan plan_kill returned, by its plan_id: the first signal, the "
            "wait, SIGKILL with force, then verifies the GPU memory came back. Refused when "
            "the plan is unknown or expired, or when any target changed since it was planned "
            "(a process exited, was replaced under its PID, or a new one matches): plan again.",
        .input_schema = object_schema(
            {{"plan_id", action_property("string", "the id plan_kill returned")}}, {"plan_id"}),
        .output_schema = kill_output_schema(),
        .annotations = destructive(false),
        .action = true,
        .run = run_execute_kill_plan});
    tools.push_back(Tool{
        .name = "reset_gpu",
        .title = "Reset a GPU",
        .description =
            "Resets GPUs (root only; nvidia-smi -r, or the amdgpu recovery file) when nothing "
            "else gives their memory back. First call with dry_run true: the preflight (what "
            "holds them) and a plan_id; then call with that plan_id (and the same gpus and "
            "force) to reset. With holders nothing is reset unless force, which ends them "
            "first through the same path as a kill.",
        .input_schema = object_schema(engine::request_schema<engine::ResetRequest>()),
        .output_schema = ojson{{"type", "object"},
                               {"properties",
                                {{"schema_version", action_property("integer", "document version")},
                                 {"plan_id", action_property("string", "the plan's identity")},
                                 {"exit_code", action_property("integer", "the outcome code")}}},
                               {"required", {"schema_version", "plan_id", "exit_code"}}},
        .annotations = destructive(false),
        .action = true,
        .run = run_reset_gpu});
    return tools;
}

}  // namespace gpukill::mcp
