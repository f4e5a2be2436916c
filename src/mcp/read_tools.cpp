// The read-only tools: what holds the GPUs and why, rogue processes, the one-verdict
// check, the audit trail and usage history, and guard policies tried against the host.
// None signals anything; rogue_scan records its findings, as `gpukill audit --rogue`.
#include <fmt/format.h>

#include "engine/audit_queries.hpp"
#include "engine/guard_test.hpp"
#include "engine/health_check.hpp"
#include "engine/list.hpp"
#include "engine/request_codec.hpp"
#include "engine/rogue_scan.hpp"
#include "mcp/tool_args.hpp"
#include "mcp/tools.hpp"
#include "model/snapshot_json.hpp"

namespace gpukill::mcp {
namespace {

using ojson = nlohmann::ordered_json;

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
    auto request = engine::request_from_json<engine::ListRequest>(arguments);
    if (!request) return tool_error(request.error().what);
    auto listed = engine::list(context.engine, *request);
    if (!listed) return tool_error(listed.error().what);
    ojson full = to_json(listed->snapshot);
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

ToolResult run_rogue_scan(ToolContext& context, const nlohmann::json& arguments) {
    auto request = engine::request_from_json<engine::RogueScanRequest>(arguments);
    if (!request) return tool_error(request.error().what);
    request->command = context.command;
    auto scanned = engine::rogue_scan(context.engine, *request, context.actor);
    if (!scanned) return tool_error(scanned.error().what);
    const std::size_t findings = scanned->findings;
    return ToolResult{.structured = scanned->document,
                      .text = fmt::format("{} rogue finding(s)", findings)};
}

ToolResult run_check(ToolContext& context, const nlohmann::json& arguments) {
    auto request = engine::request_from_json<engine::CheckRequest>(arguments);
    if (!request) return tool_error(request.error().what);
    auto outcome = engine::health_check(context.engine, *request);
    if (!outcome) return tool_error(outcome.error().what);
    return ToolResult{.structured = engine::check_json(*outcome), .text = outcome->summary};
}

ToolResult run_audit_actions(ToolContext& context, const nlohmann::json& arguments) {
    auto request = engine::request_from_json<engine::ActionsRequest>(arguments);
    if (!request) return tool_error(request.error().what);
    auto outcome = engine::audit_actions(context.engine, *request);
    if (!outcome) return tool_error(outcome.error().what);
    return ToolResult{.structured = outcome->document(),
                      .text = fmt::format("{} action record(s)", outcome->records.size())};
}

ToolResult run_audit_usage(ToolContext& context, const nlohmann::json& arguments) {
    auto request = engine::request_from_json<engine::UsageRequest>(arguments);
    if (!request) return tool_error(request.error().what);
    auto outcome = engine::audit_usage(context.engine, *request);
    if (!outcome) return tool_error(outcome.error().what);
    return ToolResult{.structured = outcome->document(),
                      .text = request->summary ? std::string("usage summary")
                                               : fmt::format("{} process(es) in the usage history",
                                                             outcome->processes.size())};
}

ToolResult run_guard_test(ToolContext& context, const nlohmann::json& arguments) {
    auto request = engine::request_from_json<engine::GuardTestRequest>(arguments);
    if (!request) return tool_error(request.error().what);
    auto tested = engine::guard_test(context.engine, *request);
    if (!tested) return tool_error(tested.error().what);
    const std::size_t count = tested->decisions.size();
    return ToolResult{.structured = tested->document(),
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
        "Processes holding a GPU, narrowed as `gpukill list` narrows them, with the same "
        "selectors `gpukill kill` takes (all of them given must match). Each process carries "
        "its container with its image.",
        object_schema(engine::request_schema<engine::ListRequest>()),
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
        object_schema(engine::request_schema<engine::RogueScanRequest>()),
        read_only_output({{"schema_version", integer_property("document version")},
                          {"findings", array_property("processes judged rogue")}},
                         {"schema_version"}),
        run_rogue_scan, /*idempotent=*/false));
    tools.push_back(read_tool(
        "check", "Health check",
        "One verdict (clean, problem, unknown) with the problems found: soft-locked GPUs, "
        "unaccounted memory above a threshold, lost GPUs, orphaned holders, holders outside "
        "allowed_users (or any holder with idle), rogue findings. As `gpukill check --json`.",
        object_schema(engine::request_schema<engine::CheckRequest>()),
        read_only_output({{"schema_version", integer_property("document version")},
                          {"verdict", string_property("clean, problem or unknown")},
                          {"summary", string_property("one line")}},
                         {"schema_version", "verdict", "summary"}),
        run_check));
    tools.push_back(read_tool(
        "audit_actions", "Audit gpukill's actions",
        "The kills, resets, refusals and guard actions gpukill recorded (STATE_DIR/"
        "audit.jsonl), each with the actor who asked (cli, agent token, mcp client, guard).",
        object_schema(engine::request_schema<engine::ActionsRequest>()),
        read_only_output({{"schema_version", integer_property("document version")},
                          {"kind", string_property("actions")}},
                         {"schema_version", "kind"}),
        run_audit_actions));
    tools.push_back(
        read_tool("audit_usage", "Audit GPU usage",
                  "Who used which GPU, how much memory, for how long, from the usage history every "
                  "listing records (STATE_DIR/usage.sqlite3), as `gpukill audit --json`.",
                  object_schema(engine::request_schema<engine::UsageRequest>()),
                  read_only_output({{"schema_version", integer_property("document version")},
                                    {"kind", string_property("processes or summary")}},
                                   {"schema_version", "kind"}),
                  run_audit_usage));
    tools.push_back(read_tool(
        "guard_test", "Test a guard policy",
        "Evaluates a guard policy (YAML text, as guard.yaml; docs/GUARD.md; default the host's "
        "configured policy) against the host now, or against a saved `gpukill list --json` "
        "document, and returns each decision: which process breaks which rule, why, and what "
        "`guard run` would do. Signals nothing, records nothing.",
        object_schema(engine::request_schema<engine::GuardTestRequest>()),
        read_only_output({{"schema_version", integer_property("document version")},
                          {"decisions", array_property("one per process and rule broken")},
                          {"signalled", boolean_property("always false")}},
                         {"schema_version", "decisions", "signalled"}),
        run_guard_test));
    return tools;
}

}  // namespace gpukill::mcp
