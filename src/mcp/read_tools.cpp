// The read-only tools: what holds the GPUs and why, rogue processes, the one-verdict
// check, the audit trail and usage history, and guard policies tried against the host.
// None signals anything; rogue_scan records its findings, as `gpukill audit --rogue`.
#include <cmath>

#include <fmt/format.h>

#include "detect/config_file.hpp"
#include "detect/rogue_json.hpp"
#include "engine/audit_json.hpp"
#include "engine/audit_queries.hpp"
#include "engine/guard_test.hpp"
#include "engine/health_check.hpp"
#include "engine/process_query.hpp"
#include "engine/request_json.hpp"
#include "engine/rogue_scan.hpp"
#include "history/usage_summary.hpp"
#include "mcp/tool_args.hpp"
#include "mcp/tools.hpp"
#include "model/byte_size.hpp"
#include "model/snapshot_json.hpp"

namespace gpukill::mcp {
namespace {

using ojson = nlohmann::ordered_json;

constexpr double kMaxHoursBack = 24.0 * 36'500;

ojson read_only_output(ojson properties, std::vector<std::string> required) {
    ojson schema = object_schema(std::move(properties), std::move(required));
    schema.erase("additionalProperties");  // documents grow by adding fields
    return schema;
}

ojson integer_property(const char* description) {
    return ojson{{"type", "integer"}, {"description", description}};
}

ojson string_property(const char* description) {
    return ojson{{"type", "string"}, {"description", description}};
}

ojson number_property(const char* description) {
    return ojson{{"type", "number"}, {"description", description}};
}

ojson boolean_property(const char* description) {
    return ojson{{"type", "boolean"}, {"description", description}};
}

ojson array_property(const char* description) {
    return ojson{{"type", "array"}, {"description", description}};
}

ojson gpu_property(const char* description) {
    return ojson{{"type", ojson::array({"string", "integer"})}, {"description", description}};
}

// The snapshot as `gpukill list --json` prints it, with only the GPUs (the processes
// are list_processes').
ToolResult run_list_gpus(ToolContext& context, const nlohmann::json&) {
    ojson doc = snapshot_document(context.engine);
    doc.erase("processes");
    const std::size_t count = doc["gpus"].size();
    return ToolResult{.structured = std::move(doc), .text = fmt::format("{} GPU(s)", count)};
}

ToolResult run_list_processes(ToolContext& context, const nlohmann::json& arguments) {
    auto request = engine::kill_request_from_json(arguments);
    if (!request) return tool_error(request.error().what);
    const Snapshot snapshot = context.engine.list().snapshot;
    auto selected = engine::select_processes(
        snapshot, engine::ProcessQuery{.selectors = request->selectors, .gpu = request->gpu});
    if (!selected) return tool_error(selected.error().what);
    ojson full = to_json(*selected);
    ojson doc{{"schema_version", full["schema_version"]},
              {"host", full["host"]},
              {"timestamp_unix_ms", full["timestamp_unix_ms"]},
              {"count", full["processes"].size()},
              {"processes", full["processes"]},
              {"visibility", full["visibility"]}};
    const std::size_t count = doc["count"].get<std::size_t>();
    return ToolResult{.structured = std::move(doc),
                      .text = fmt::format("{} process(es) hold a GPU and match", count)};
}

ToolResult run_explain_gpu(ToolContext& context, const nlohmann::json& arguments) {
    std::string gpu;
    if (auto bad = read_gpu_argument(arguments, "gpu", gpu)) return tool_error(*bad);
    std::string error;
    auto doc = explain_document(context.engine, gpu, error);
    if (!doc) return tool_error(error);
    std::string text;
    for (const auto& line : (*doc)["explanation"]) text += line.get<std::string>() + "\n";
    return ToolResult{.structured = std::move(*doc), .text = std::move(text)};
}

std::optional<std::string> read_hours(const nlohmann::json& arguments, double& hours) {
    if (auto bad = read_number_argument(arguments, "hours", hours)) return bad;
    if (!(std::isfinite(hours) && hours > 0 && hours <= kMaxHoursBack)) {
        return "hours must be more than 0 and at most 876000";
    }
    return std::nullopt;
}

ToolResult run_rogue_scan(ToolContext& context, const nlohmann::json& arguments) {
    engine::RogueScanRequest request;
    request.command = context.command;
    if (auto bad = read_hours(arguments, request.hours)) return tool_error(*bad);
    if (auto bad = read_optional_string(arguments, "user", request.user)) return tool_error(*bad);
    auto loaded = detect::load_rogue_config(context.engine.config().config_dir, std::nullopt);
    if (!loaded) return tool_error(loaded.error().what);
    auto scanned = engine::rogue_scan(context.engine, request, *loaded, context.actor);
    if (!scanned) return tool_error(scanned.error().what);
    const std::size_t findings = scanned->report.findings.size();
    return ToolResult{.structured = detect::report_json(scanned->report, scanned->context),
                      .text = fmt::format("{} rogue finding(s)", findings)};
}

ToolResult run_check(ToolContext& context, const nlohmann::json& arguments) {
    engine::CheckRequest request;
    std::optional<std::uint64_t> threshold;
    if (auto bad = read_optional_unsigned(arguments, "unaccounted_memory_bytes", threshold)) {
        return tool_error(*bad);
    }
    if (threshold) request.unaccounted_memory_bytes = *threshold;
    bool idle = false;
    std::vector<std::string> allowed;
    for (auto bad : {read_bool_argument(arguments, "idle", idle),
                     read_string_list(arguments, "allowed_users", allowed),
                     read_bool_argument(arguments, "rogue", request.rogue),
                     read_bool_argument(arguments, "orphans", request.orphans)}) {
        if (bad) return tool_error(*bad);
    }
    if (idle && !allowed.empty()) return tool_error("give idle or allowed_users, not both");
    if (idle || !allowed.empty()) {
        request.allowed_users = std::set<std::string>(allowed.begin(), allowed.end());
    }
    const engine::CheckOutcome outcome = engine::health_check(context.engine, request);
    return ToolResult{.structured = engine::check_json(outcome), .text = outcome.summary};
}

struct AuditWindow {
    engine::AuditScope scope;
    std::optional<Pattern> process;
};

std::optional<std::string> read_audit_window(ToolContext& context, const nlohmann::json& arguments,
                                             AuditWindow& window) {
    window.scope.hours = 24;
    if (auto bad = read_hours(arguments, window.scope.hours)) return bad;
    if (auto bad = read_optional_string(arguments, "user", window.scope.user)) return bad;
    if (auto bad = read_optional_string(arguments, "process", window.scope.process)) return bad;
    if (window.scope.process) {
        auto compiled = history::compile_process_pattern(*window.scope.process);
        if (!compiled) return compiled.error().what;
        window.process = std::move(*compiled);
    }
    window.scope.until_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                     context.engine.now().time_since_epoch())
                                     .count();
    window.scope.since_unix_ms =
        window.scope.until_unix_ms -
        static_cast<std::int64_t>(std::llround(window.scope.hours * 3'600'000.0));
    return std::nullopt;
}

ToolResult run_audit_actions(ToolContext& context, const nlohmann::json& arguments) {
    AuditWindow window;
    if (auto bad = read_audit_window(context, arguments, window)) return tool_error(*bad);
    window.scope.kind = "actions";
    auto actions = engine::query_actions(
        context.engine, engine::ActionQuery{.since_unix_ms = window.scope.since_unix_ms,
                                            .until_unix_ms = window.scope.until_unix_ms,
                                            .user = window.scope.user,
                                            .process = window.process});
    if (!actions) return tool_error(actions.error().what);
    window.scope.source = actions->source;
    window.scope.source_available = actions->available;
    ojson doc =
        engine::actions_json(window.scope, actions->available ? actions->log : audit::ActionLog{});
    const std::size_t count = doc.contains("records") ? doc["records"].size() : 0;
    return ToolResult{.structured = std::move(doc),
                      .text = fmt::format("{} action record(s)", count)};
}

ToolResult run_audit_usage(ToolContext& context, const nlohmann::json& arguments) {
    AuditWindow window;
    if (auto bad = read_audit_window(context, arguments, window)) return tool_error(*bad);
    bool summary = false;
    if (auto bad = read_bool_argument(arguments, "summary", summary)) return tool_error(*bad);
    window.scope.kind = summary ? "summary" : "processes";
    auto usage = engine::query_usage(context.engine,
                                     engine::UsageQuery{.since_unix_ms = window.scope.since_unix_ms,
                                                        .until_unix_ms = window.scope.until_unix_ms,
                                                        .user = window.scope.user,
                                                        .process = window.process});
    if (!usage) return tool_error(usage.error().what);
    window.scope.source = usage->source;
    window.scope.source_available = usage->available;
    if (summary) {
        const history::UsageSummary totals = history::summarize_usage(
            usage->gpus, usage->processes, usage->weights, history::local_hour_of_day);
        return ToolResult{
            .structured = engine::usage_summary_json(window.scope, usage->weights, totals),
            .text = "usage summary"};
    }
    const auto processes = history::summarize_processes(usage->processes, usage->weights);
    return ToolResult{
        .structured = engine::process_usage_json(window.scope, usage->weights, processes),
        .text = fmt::format("{} process(es) in the usage history", processes.size())};
}

ToolResult run_guard_test(ToolContext& context, const nlohmann::json& arguments) {
    std::optional<std::string> policy;
    if (auto bad = read_optional_string(arguments, "policy", policy)) return tool_error(*bad);
    if (!policy) return tool_error("policy: the policy's YAML text is required");
    auto tested =
        engine::guard_test(context.engine, engine::GuardTestRequest{.policy_text = *policy});
    if (!tested) return tool_error(tested.error().what);
    const std::size_t count = tested->decisions.size();
    return ToolResult{.structured = engine::guard_test_json(*tested),
                      .text = fmt::format("{} decision(s); nothing was signalled", count)};
}

Tool read_tool(std::string name, std::string title, std::string description, ojson input,
               ojson output, std::function<ToolResult(ToolContext&, const nlohmann::json&)> run,
               bool idempotent = true) {
    return Tool{.name = std::move(name),
                .title = std::move(title),
                .description = std::move(description),
                .input_schema = std::move(input),
                .output_schema = std::move(output),
                .annotations = ToolAnnotations{.read_only = true,
                                               .destructive = false,
                                               .idempotent = idempotent,
                                               .open_world = false},
                .action = false,
                .run = std::move(run)};
}

ojson window_properties() {
    return ojson{{"hours", number_property("hours back from now (default 24)")},
                 {"user", string_property("only this user (exact name or uid)")},
                 {"process", string_property("only processes whose name or command matches "
                                             "this regular expression (docs/PATTERNS.md)")}};
}

}  // namespace

std::vector<Tool> read_tools() {
    std::vector<Tool> tools;
    tools.push_back(read_tool(
        "list_gpus", "List GPUs",
        "Every GPU on this host: memory used and total, utilisation, temperature, power, the "
        "number of processes holding it, and memory no listed process accounts for. The "
        "document of `gpukill list --json` without its processes.",
        object_schema(ojson::object()),
        read_only_output({{"schema_version", integer_property("document version")},
                          {"gpus", array_property("one entry per GPU (docs/JSON.md)")}},
                         {"schema_version", "gpus"}),
        run_list_gpus));
    tools.push_back(read_tool(
        "list_processes", "List GPU processes",
        "Processes holding a GPU, filtered as `gpukill kill`'s selectors filter (all of them "
        "given must match): gpu, filter (regex on name and command line), user, container "
        "(id prefix or pod UID), image / not_image (regex on the container's image), "
        "min_memory_bytes, orphaned, unlisted (holds the device file, absent from the "
        "driver's list). Each process carries its container with its image.",
        object_schema(selector_properties()),
        read_only_output({{"schema_version", integer_property("document version")},
                          {"count", integer_property("processes listed")},
                          {"processes", array_property("as in `gpukill list --json`")}},
                         {"schema_version", "count", "processes"}),
        run_list_processes));
    tools.push_back(read_tool(
        "explain_gpu", "Explain a GPU's memory",
        "Why a GPU's memory is used: the holders the driver lists (with their memory), the "
        "holders seen only through the device file (which nvidia-smi does not show), the "
        "memory nobody accounts for, and whether the GPU looks soft-locked (memory used and "
        "nothing holds it: only a reset gives it back).",
        object_schema({{"gpu", gpu_property("index, UUID or PCI bus id")}}, {"gpu"}),
        read_only_output(
            {{"gpu", ojson{{"type", "object"}}},
             {"listed_holders", array_property("processes the driver lists on this GPU")},
             {"device_file_holders", array_property("holders seen only by device file")},
             {"unaccounted_memory_bytes",
              ojson{{"type", ojson::array({"integer", "null"})},
                    {"description", "used memory no listed process accounts for"}}},
             {"soft_locked", boolean_property("memory used and nothing holds the GPU")},
             {"explanation", array_property("one line each, for people")}},
            {"gpu", "listed_holders", "device_file_holders", "soft_locked", "explanation"}),
        run_explain_gpu));
    tools.push_back(read_tool(
        "rogue_scan", "Scan for rogue processes",
        "Judges every GPU holder for signs of a miner or other rogue use (name, command line, "
        "executable signatures, pool connections, usage shape), as `gpukill audit --rogue`. "
        "Findings are recorded in the audit log as rogue_finding; nothing is signalled.",
        object_schema({{"hours", number_property("usage history window (default 24)")},
                       {"user", string_property("only this user's processes")}}),
        read_only_output({{"schema_version", integer_property("document version")},
                          {"findings", array_property("processes judged rogue")}},
                         {"schema_version"}),
        run_rogue_scan, /*idempotent=*/false));
    tools.push_back(read_tool(
        "check", "Health check",
        "One verdict (clean, problem, unknown) with the problems found: soft-locked GPUs, "
        "unaccounted memory above a threshold, lost GPUs, orphaned holders, holders outside "
        "allowed_users (or any holder with idle), rogue findings. As `gpukill check --json`.",
        object_schema(
            {{"unaccounted_memory_bytes",
              integer_property("threshold per GPU (default 268435456, 256 MiB)")},
             {"allowed_users", ojson{{"type", "array"},
                                     {"items", {{"type", "string"}}},
                                     {"description", "a holder of another user is a problem"}}},
             {"idle", boolean_property("any holder is a problem")},
             {"rogue", boolean_property("judge rogue processes (default true)")},
             {"orphans", boolean_property("orphaned holders are problems (default true)")}}),
        read_only_output({{"schema_version", integer_property("document version")},
                          {"verdict", string_property("clean, problem or unknown")},
                          {"summary", string_property("one line")}},
                         {"schema_version", "verdict", "summary"}),
        run_check));
    tools.push_back(read_tool(
        "audit_actions", "Audit gpukill's actions",
        "The kills, resets, refusals and guard actions gpukill recorded (STATE_DIR/"
        "audit.jsonl), each with the actor who asked (cli, agent token, mcp client, guard).",
        object_schema(window_properties()),
        read_only_output({{"schema_version", integer_property("document version")},
                          {"kind", string_property("actions")}},
                         {"schema_version", "kind"}),
        run_audit_actions));
    ojson usage_properties = window_properties();
    usage_properties["summary"] =
        boolean_property("GPU-hours and peak memory per user and process, by hour");
    tools.push_back(
        read_tool("audit_usage", "Audit GPU usage",
                  "Who used which GPU, how much memory, for how long, from the usage history every "
                  "listing records (STATE_DIR/usage.sqlite3), as `gpukill audit --json`.",
                  object_schema(usage_properties),
                  read_only_output({{"schema_version", integer_property("document version")},
                                    {"kind", string_property("processes or summary")}},
                                   {"schema_version", "kind"}),
                  run_audit_usage));
    tools.push_back(read_tool(
        "guard_test", "Test a guard policy",
        "Evaluates a guard policy (YAML text, as guard.yaml; docs/GUARD.md) against the host "
        "now and returns each decision: which process breaks which rule, why, and what "
        "`guard run` would do. Signals nothing, records nothing.",
        object_schema({{"policy", string_property("the policy's YAML text")}}, {"policy"}),
        read_only_output({{"schema_version", integer_property("document version")},
                          {"decisions", array_property("one per process and rule broken")},
                          {"signalled", boolean_property("always false")}},
                         {"schema_version", "decisions", "signalled"}),
        run_guard_test));
    return tools;
}

}  // namespace gpukill::mcp
